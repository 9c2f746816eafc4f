// Package plural writes counts with the right noun form for the user
// interfaces: "1 passage", "2 passages", "0 passages".
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
