// Package plural writes counts for the user interfaces and the messages:
// with the right noun form ("1 passage", "2 passages", "0 passages") and
// with their digits grouped by thousands ("12,345").
package plural

import "strconv"

// Int is any integer count.
type Int interface {
	~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64
}

// Of is n followed by the noun: one for exactly 1, many otherwise.
func Of[T Int](n T, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, one, many)
}

// N is Of with the regular English plural: one + "s".
func N[T Int](n T, one string) string { return Of(n, one, one+"s") }

// Noun is the noun alone for a count of n.
func Noun[T Int](n T, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with its digits grouped by thousands: 12345 as
// "12,345", -1234 as "-1,234".
func Thousands[T Int](n T) string {
	var s string
	if n < 0 {
		s = strconv.FormatInt(int64(n), 10)
	} else {
		s = strconv.FormatUint(uint64(n), 10)
	}
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	b := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	b = append(b, sign...)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
