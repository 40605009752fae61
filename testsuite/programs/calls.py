# SPDX-License-Identifier: GPL-2.0-or-later
# A small Python program whose calls the python markers test follows.


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main():
    print("fib", fib(3))


main()
