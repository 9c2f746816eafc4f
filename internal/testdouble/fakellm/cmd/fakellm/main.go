// Command fakellm runs the project's fake LLM server (package
// internal/testdouble/fakellm) on 127.0.0.1 for end-to-end tests of the real prefrag
// binary. It speaks Ollama's and llama.cpp's HTTP protocols at once, or
// with "openai": true in the script an OpenAI-compatible server's (vLLM).
//
//	fakellm --script script.json [--port 0] [--max-lifetime 10m] [--record requests.jsonl]
//
// The first line on stdout is the server's URL. The server stops when its
// standard input closes (unless --no-stdin), on SIGINT/SIGTERM, or after
// --max-lifetime, so it always ends by itself. With --record, every request
// received is written as one JSON line to that file when it stops.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("fakellm: ")
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	port := fs.Int("port", 0, "TCP port on 127.0.0.1 (0 picks a free one)")
	script := fs.String("script", "", "JSON script: steps, judges, rules, chunk_delay_ms, …")
	lifetime := fs.Duration("max-lifetime", 10*time.Minute, "stop after this long whatever happens")
	noStdin := fs.Bool("no-stdin", false, "do not stop when standard input closes")
	record := fs.String("record", "", "write every request received to this file (JSON Lines) on exit")
	fs.SetOutput(stdout)
	fs.Usage = func() { usage(stdout, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return fmt.Errorf("--port %d is out of range", *port)
	}
	if *lifetime <= 0 {
		return errors.New("--max-lifetime must be positive")
	}

	cfg := fakellm.Config{}
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			return err
		}
		if cfg, err = fakellm.ParseConfig(data); err != nil {
			return err
		}
	}
	opts := append(cfg.Options(), fakellm.Addr(fmt.Sprintf("127.0.0.1:%d", *port)))
	srv, err := fakellm.Start(cfg.Responder(), opts...)
	if err != nil {
		return err
	}
	defer srv.Close()
	if _, err := fmt.Fprintln(stdout, srv.URL()); err != nil {
		return err
	}

	stop := make(chan string, 3)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() { stop <- "signal " + (<-sigs).String() }()
	if !*noStdin {
		go func() {
			_, _ = io.Copy(io.Discard, bufio.NewReader(stdin))
			stop <- "standard input closed"
		}()
	}
	timer := time.NewTimer(*lifetime)
	defer timer.Stop()
	var why string
	select {
	case why = <-stop:
	case <-timer.C:
		why = "max lifetime reached"
	}
	log.Printf("stopping: %s", why)
	srv.Close()
	if *record != "" {
		return writeRecord(*record, srv.Requests())
	}
	return nil
}

// usage is `fakellm -h`: what it does, its flags and its script format.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "fakellm: the project's fake LLM server for end-to-end tests. It speaks Ollama's and")
	fmt.Fprintln(w, "llama.cpp's HTTP protocols at once (or, with \"openai\": true, an OpenAI-compatible one)")
	fmt.Fprintln(w, "on 127.0.0.1, prints its URL as the first line on stdout, and stops when stdin closes,")
	fmt.Fprintln(w, "on SIGINT/SIGTERM, or after --max-lifetime.")
	fmt.Fprintln(w, "\nUsage:\n  fakellm --script script.json [--port 0] [--max-lifetime 10m] [--record requests.jsonl]")
	fmt.Fprintln(w, "\nFlags:")
	fs.PrintDefaults()
	fmt.Fprintln(w)
	fakellm.WriteScriptHelp(w)
}

func writeRecord(path string, reqs []fakellm.Recorded) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, r := range reqs {
		if err := enc.Encode(r); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
