// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxx: C++ as people write it, for probes by name: a namespace, a class
 * with methods, overloads, a template, a function that throws, built -g
 * -O2 (and -O0) by testsuite/programs/build.
 */
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace geo {

struct Rect {
	int w, h;
	__attribute__((noinline)) int area() const;
};

int Rect::area() const
{
	return w * h;
}

__attribute__((noinline)) int total_area(const std::vector<Rect> &rects)
{
	int total = 0;

	for (const Rect &r : rects)
		total += r.area();
	return total;
}

__attribute__((noinline)) long scale(long v, int k)
{
	return v * k;
}

__attribute__((noinline)) long scale(long v)
{
	return scale(v, 10);
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
	T r = v + v;

	__asm__ volatile("" : "+r"(r));
	return r;
}

} // namespace geo

__attribute__((noinline)) int checked(int i)
{
	if (i > 2)
		throw std::out_of_range("too big");
	return i * 100;
}

int main()
{
	std::vector<geo::Rect> rects{ { 2, 3 }, { 4, 5 } };
	long s = geo::scale(7) + geo::twice(21) + geo::twice(4L);
	int caught = 0;

	for (int i = 1; i <= 3; i++) {
		try {
			s += checked(i);
		} catch (const std::out_of_range &) {
			caught++;
		}
	}
	std::printf("total %d scaled %ld caught %d\n", geo::total_area(rects), s, caught);
	return 0;
}
