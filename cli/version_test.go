package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFallbacks(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	other := "fedcba9876543210fedcba9876543210fedcba98"
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	bare := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	for _, c := range []struct {
		name          string
		bi            *debug.BuildInfo
		commit, stamp string
		want          string
	}{
		{"tarball: git archive substituted the stamp", bare, "", other + " 2026-11-20T09:00:00+01:00\n",
			"prefrag devel (commit fedcba987654, built 2026-11-20T09:00:00+01:00)"},
		{"checkout: the stamp is not substituted", bare, "", "$Format:%H %cI$\n", "prefrag devel (commit unknown, built unknown)"},
		{"go's VCS stamp wins over the archive stamp", stamped, "", other + " 2026-11-20T09:00:00+01:00",
			"prefrag devel (commit 0123456789ab-dirty, built 2026-11-23T10:00:00Z)"},
		{"ldflags commit wins", stamped, other, "", "prefrag devel (commit fedcba987654, built 2026-11-23T10:00:00Z)"},
		{"garbage stamp ignored", bare, "", "not a commit", "prefrag devel (commit unknown, built unknown)"},
		{"empty stamp", bare, "", "", "prefrag devel (commit unknown, built unknown)"},
	} {
		if got := versionFrom("dev", c.bi, c.commit, c.stamp); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
