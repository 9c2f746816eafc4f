package trajectory

import "testing"

// TestKeepClusters: a style's sequences never stand inside a grapheme
// cluster; between clusters they stay where they are.
func TestKeepClusters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1mab\x1b[m\x1b[3mc\x1b[m", "\x1b[1mab\x1b[m\x1b[3mc\x1b[m"},
		// An accent in the next node: the reset and the new style go after it.
		{"\x1b[1mx\x1b[m\x1b[3m\u0301y\x1b[m", "\x1b[1mx\u0301\x1b[m\x1b[3my\x1b[m"},
		// A prepended sign holds the space after it.
		{"\x1b[1m0\u0600\x1b[m \x1b[1m0\x1b[m", "\x1b[1m0\u0600 \x1b[m\x1b[1m0\x1b[m"},
		// An emoji and its skin tone.
		{"\x1b[1m👍\x1b[m\x1b[2m🏽!\x1b[m", "\x1b[1m👍🏽\x1b[m\x1b[2m!\x1b[m"},
		// At the end of the text.
		{"a\x1b[1m\u0301\x1b[m", "a\u0301\x1b[1m\x1b[m"},
	} {
		if got := keepClusters(tc.in); got != tc.want {
			t.Errorf("keepClusters(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
