package cli

import "errors"

// These commands are wired in as their packages land (TUI, evaluation,
// benchmarks, exports).
var errNotWired = errors.New("this command is not available in this build yet")

func runTUI(e *env, args []string) error   { return errNotWired }
func runBench(e *env, args []string) error { return errNotWired }
