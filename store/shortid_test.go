package store

import "testing"

func TestShortestPrefixes(t *testing.T) {
	all := []string{
		"019ab3c4d5e67a1b8c2d3e4f5a6b7c8d", // old ids: the same second
		"019ab3c4d5e67f009e8d7c6b5a493827",
		"019ab3c4d5e77a1b8c2d3e4f5a6b7c8d",
		"3f2a91c0aa11bb22cc33dd44ee55ff66", // new ids
		"3f2a9d77aa11bb22cc33dd44ee55ff66",
		"a1b2c3d4e5f60718293a4b5c6d7e8f90",
		"abc", // shorter than the minimum
	}
	want := map[string]string{
		all[0]: "019ab3c4d5e67a",
		all[1]: "019ab3c4d5e67f",
		all[2]: "019ab3c4d5e7",
		all[3]: "3f2a91c",
		all[4]: "3f2a9d7",
		all[5]: "a1b2c3d",
		"abc":  "abc",
	}
	got := ShortestPrefixes(all, append(all, "not-stored"), 7)
	if len(got) != len(want) {
		t.Errorf("got %d prefixes, want %d: %v", len(got), len(want), got)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
		n := 0
		for _, other := range all {
			if len(other) >= len(got[id]) && other[:len(got[id])] == got[id] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("prefix %q of %s names %d ids", got[id], id, n)
		}
	}
}
