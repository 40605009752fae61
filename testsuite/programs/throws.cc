// SPDX-License-Identifier: GPL-2.0-or-later
// A C++ program that throws and catches: libstdc++'s throw and catch
// markers (the cxx-exceptions example) see each exception's type.
#include <cstdio>
#include <stdexcept>

struct tapline_error : std::runtime_error {
	tapline_error() : std::runtime_error("tapline") {}
};

__attribute__((noinline)) static void fail(int i)
{
	if (i % 2)
		throw tapline_error();
	throw std::out_of_range("range");
}

int main()
{
	int caught = 0;
	for (int i = 0; i < 3; i++) {
		try {
			fail(i);
		} catch (const std::exception &e) {
			caught++;
		}
	}
	std::printf("caught %d\n", caught);
	return 0;
}
