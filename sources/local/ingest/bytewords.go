package ingest

// Byte-parallel tests on 8 bytes at once (a uint64 read little-endian)
// for the loop over JSON strings in the .jsonl scanner: they are most of a
// line and mostly need no attention. The "has less" test is exact for
// whether any byte is below n (n <= 128); a given byte is found as a zero
// byte after an XOR.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

func hasByteBelow(w uint64, n byte) bool { return (w-lowBits*uint64(n))&^w&highBits != 0 }

func hasByte(w uint64, c byte) bool {
	x := w ^ lowBits*uint64(c)
	return (x-lowBits)&^x&highBits != 0
}
