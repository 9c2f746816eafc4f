//go:build race

package ui

// raceEnabled is set when the tests run under the race detector, which
// makes every key message several times slower.
const raceEnabled = true
