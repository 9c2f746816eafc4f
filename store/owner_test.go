package store

import (
	"os"
	"os/exec"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		state byte
		start uint64
		ok    bool
	}{
		{"plain", "4242 (prefrag) S 1 4242 4242 0 -1 4194560 1234 0 0 0 12 3 0 0 20 0 9 0 987654 1234567 890 18446744073709551615\n", 'S', 987654, true},
		{"name with spaces and parens", "77 (my (odd) name) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 31337 0 0", 'R', 31337, true},
		{"zombie", "9 (prefrag) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0", 'Z', 55, true},
		{"too short", "9 (prefrag) S 1 9", 0, 0, false},
		{"no parens", "9 prefrag S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0", 0, 0, false},
		{"bad start", "9 (x) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -55 0 0", 0, 0, false},
		{"empty", "", 0, 0, false},
	}
	for _, tt := range tests {
		st, err := parseProcStat(tt.line)
		if (err == nil) != tt.ok || st.state != tt.state || st.start != tt.start {
			t.Errorf("%s: got %c %d %v", tt.name, st.state, st.start, err)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("4242 (prefrag) S 1 4242 4242 0 -1 4194560 1234 0 0 0 12 3 0 0 20 0 9 0 987654 1234567 890\n")
	f.Add("77 (a) b) c) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 31337 0 0")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, line string) {
		st, err := parseProcStat(line)
		if err != nil {
			return
		}
		if st.state == 0 || st.state == ' ' {
			t.Errorf("accepted %q with state %q", line, st.state)
		}
	})
}

func TestOwnerCheck(t *testing.T) {
	me := currentOwner()
	if me.PID != os.Getpid() || me.Host == "" {
		t.Fatalf("currentOwner = %+v", me)
	}
	// A finished child gives a pid that is gone.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gonePID := cmd.Process.Pid
	parent := os.Getppid()
	parentStat, err := readProcStat(parent)
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	tests := []struct {
		name  string
		owner Owner
		want  ownerState
	}{
		{"this process", me, ownerAlive},
		{"parent, same start", Owner{Host: me.Host, PID: parent, Start: parentStat.start, Boot: me.Boot}, ownerAlive},
		{"parent pid, other start (pid reused)", Owner{Host: me.Host, PID: parent, Start: parentStat.start + 1, Boot: me.Boot}, ownerGone},
		{"exited child", Owner{Host: me.Host, PID: gonePID, Start: 1, Boot: me.Boot}, ownerGone},
		{"before a reboot", Owner{Host: me.Host, PID: me.PID, Start: me.Start, Boot: "another-boot"}, ownerGone},
		{"no pid (imported)", Owner{Host: me.Host}, ownerGone},
		{"other host", Owner{Host: me.Host + ".elsewhere", PID: gonePID}, ownerUnknown},
	}
	for _, tt := range tests {
		if got := me.check(tt.owner); got != tt.want {
			t.Errorf("%s: check = %d, want %d", tt.name, got, tt.want)
		}
	}
}
