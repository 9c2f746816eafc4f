// Package sphinxtest starts a real two-node Sphinx cluster for tests: two
// searchd processes from Debian's sphinxsearch package (Sphinx 2.2, which
// speaks the SphinxQL protocol Manticore Search speaks), each serving one
// shard, and a distributed index on the first that queries both shards
// through their agents, as a Manticore cluster would. Everything runs on
// 127.0.0.1 with ports picked at start, in a temporary directory, and stops
// by itself: at the test's cleanup, and — should the test process die
// without cleaning up — through a watchdog process per searchd that kills
// it as soon as the test process is gone.
//
// Tests skip (t.Skip) when searchd or indexer is not installed.
package sphinxtest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Index names of a Cluster: the distributed index (on node 0) and the
// shards (ShardName(0) on node 0, ShardName(1) on node 1).
const (
	Distributed = "dist"
)

// Column names of the indexes: title and text are full-text fields also
// stored as string attributes (Sphinx 2.2 stores no field text); doc_id
// (the document's own id) and url are string attributes; id is Sphinx's
// numeric document id.
const (
	TitleField = "title"
	TextField  = "text"
	IDField    = "doc_id"
	URLField   = "url"
)

// ShardName is the index name of shard i.
func ShardName(i int) string { return "shard" + strconv.Itoa(i+1) }

// Doc is one document to load.
type Doc struct {
	ID, Title, Text, URL string
}

// Cluster is a running two-node cluster.
type Cluster struct {
	// Addr is node 0's SphinxQL address (host:port), which serves the
	// distributed index and shard 1.
	Addr  string
	nodes []*Node
}

// Node is one searchd process.
type Node struct {
	// SQLAddr is the node's SphinxQL (mysql41) listener, APIAddr its
	// binary-protocol listener (what agents talk to).
	SQLAddr, APIAddr string
	dir              string
	cmd              *exec.Cmd
	exited           chan struct{}
	watchdog         *exec.Cmd
	lifeline         *os.File // write end of the watchdog's stdin
	kill             bool     // stop with SIGKILL at once
	out              *syncBuffer
}

// syncBuffer collects searchd's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Node returns node i (0 or 1).
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// Installed returns the paths of searchd and indexer, or an error saying
// what is missing.
func Installed() (searchd, indexer string, err error) {
	searchd, err = exec.LookPath("searchd")
	if err != nil {
		return "", "", fmt.Errorf("searchd is not installed (Debian/Ubuntu: apt-get install sphinxsearch)")
	}
	indexer, err = exec.LookPath("indexer")
	if err != nil {
		return "", "", fmt.Errorf("indexer is not installed (Debian/Ubuntu: apt-get install sphinxsearch)")
	}
	return searchd, indexer, nil
}

// Start builds shard i from shards[i] (exactly two shards; one may be
// empty) and starts the two searchd processes; the test is skipped when
// Sphinx is not installed. Everything stops at t's cleanup. Documents go
// through xmlpipe2, so characters XML cannot hold (C0 controls other than
// tab and newline) arrive as U+FFFD.
func Start(t testing.TB, shards [2][]Doc) *Cluster {
	t.Helper()
	searchd, indexer, err := Installed()
	if err != nil {
		t.Skipf("skipping the Manticore/Sphinx test: %v", err)
	}
	root := t.TempDir()
	c := &Cluster{}
	t.Cleanup(func() {
		for _, n := range c.nodes {
			n.stop()
		}
	})
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		// Ports are picked free and handed to searchd: another process
		// may take one in between, so a failed start is retried with
		// new ports.
		for _, n := range c.nodes {
			n.stop()
		}
		c.nodes = nil
		ports, err := pickPorts(4)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			c.nodes = append(c.nodes, &Node{
				SQLAddr: "127.0.0.1:" + strconv.Itoa(ports[2*i]),
				APIAddr: "127.0.0.1:" + strconv.Itoa(ports[2*i+1]),
				dir:     filepath.Join(root, fmt.Sprintf("try%d-node%d", attempt, i)),
			})
		}
		last = nil
		for i, n := range c.nodes {
			if err := n.build(indexer, i, shards[i], c.nodes); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range c.nodes {
			if err := n.start(searchd); err != nil {
				last = err
				break
			}
		}
		if last == nil {
			c.Addr = c.nodes[0].SQLAddr
			return c
		}
	}
	t.Fatalf("starting searchd: %v", last)
	return nil
}

// pickPorts is freePorts; the tests replace it to make a port collide.
var pickPorts = freePorts

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// build writes node i's configuration and documents and runs indexer.
func (n *Node) build(indexer string, i int, docs []Doc, nodes []*Node) error {
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return err
	}
	docsPath := filepath.Join(n.dir, "docs.xml")
	if err := os.WriteFile(docsPath, xmlpipe(i, docs), 0o644); err != nil {
		return err
	}
	var dist string
	if i == 0 {
		dist = fmt.Sprintf(`
index %s {
  type = distributed
  agent = %s:%s
  agent = %s:%s
  agent_connect_timeout = 1000
  agent_query_timeout = 3000
}
`, Distributed, nodes[0].APIAddr, ShardName(0), nodes[1].APIAddr, ShardName(1))
	}
	conf := fmt.Sprintf(`
source src {
  type = xmlpipe2
  xmlpipe_command = cat %[1]s
  xmlpipe_field_string = %[2]s
  xmlpipe_field_string = %[3]s
  xmlpipe_attr_string = %[4]s
  xmlpipe_attr_string = %[5]s
}

index %[6]s {
  source = src
  path = %[7]s
  index_field_lengths = 1
  docinfo = extern
}
%[8]s
indexer {
  mem_limit = 32M
}

searchd {
  listen = %[9]s:mysql41
  listen = %[10]s
  log = %[11]s
  query_log = %[12]s
  pid_file = %[13]s
  binlog_path =
  workers = threads
  max_children = 16
  read_timeout = 5
  client_timeout = 60
}
`, docsPath, "title", "text", "doc_id", "url",
		ShardName(i), filepath.Join(n.dir, ShardName(i)), dist,
		n.SQLAddr, n.APIAddr,
		filepath.Join(n.dir, "searchd.log"), filepath.Join(n.dir, "query.log"), filepath.Join(n.dir, "searchd.pid"))
	confPath := filepath.Join(n.dir, "sphinx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(indexer, "--config", confPath, "--all", "--quiet")
	cmd.Dir = n.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("indexer for %s: %v\n%s", ShardName(i), err, out)
	}
	return nil
}

// xmlpipe is the xmlpipe2 document set of shard i. Sphinx ids are numbers,
// unique across shards; the document's own id goes to doc_id.
func xmlpipe(shard int, docs []Doc) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n<sphinx:docset>\n")
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	for j, d := range docs {
		fmt.Fprintf(&b, "<sphinx:document id=\"%d\"><title>%s</title><text>%s</text><doc_id>%s</doc_id><url>%s</url></sphinx:document>\n",
			(shard+1)*1_000_000+j+1, esc(d.Title), esc(d.Text), esc(d.ID), esc(d.URL))
	}
	b.WriteString("</sphinx:docset>\n")
	return b.Bytes()
}

// start runs searchd in the foreground and waits until its SphinxQL port
// greets.
func (n *Node) start(searchd string) error {
	n.out = &syncBuffer{}
	n.cmd = exec.Command(searchd, "--config", filepath.Join(n.dir, "sphinx.conf"), "--nodetach")
	n.cmd.Dir = n.dir
	n.cmd.Stdout = n.out
	n.cmd.Stderr = n.out
	if err := n.cmd.Start(); err != nil {
		return err
	}
	n.exited = make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(n.exited) }()
	if err := n.startWatchdog(); err != nil {
		n.stop()
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-n.exited:
			return fmt.Errorf("searchd exited at start: %s", strings.TrimSpace(n.out.String()))
		default:
		}
		if strings.Contains(n.out.String(), "bind() failed") {
			// Another process took a port (searchd would retry for a
			// minute): start again with other ports.
			n.kill = true
			n.stop()
			return fmt.Errorf("searchd could not bind its ports: %s", strings.TrimSpace(n.out.String()))
		}
		// "accepting connections" is printed once every listener is
		// bound: a greeting alone could come from another process that
		// took one of the ports first.
		if strings.Contains(n.out.String(), "accepting connections") && greets(n.SQLAddr) && greets(n.APIAddr) {
			select {
			case <-n.exited:
				return fmt.Errorf("searchd exited at start: %s", strings.TrimSpace(n.out.String()))
			default:
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.stop()
	return fmt.Errorf("searchd did not answer on %s within 30 s", n.SQLAddr)
}

// startWatchdog starts `sh` reading its stdin, a pipe whose write end only
// this process holds: when this process ends, however it ends, the read
// returns and the shell kills searchd.
func (n *Node) startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	n.watchdog = exec.Command("sh", "-c", `read _ignored; kill -KILL "$1" 2>/dev/null`, "sphinxtest-watchdog", strconv.Itoa(n.cmd.Process.Pid))
	n.watchdog.Stdin = r
	if err := n.watchdog.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	r.Close()
	n.lifeline = w
	go func() { _ = n.watchdog.Wait() }()
	return nil
}

func greets(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	var b [1]byte
	_, err = conn.Read(b[:])
	return err == nil
}

// Stop ends the node (SIGTERM, then SIGKILL after 5 s) and waits for it:
// the cluster with a node down.
func (n *Node) Stop() { n.stop() }

func (n *Node) stop() {
	if n.watchdog != nil && n.watchdog.Process != nil {
		// The watchdog first, so that it never kills a reused pid.
		_ = n.watchdog.Process.Kill()
		n.watchdog = nil
	}
	if n.lifeline != nil {
		n.lifeline.Close()
		n.lifeline = nil
	}
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	select {
	case <-n.exited:
		return
	default:
	}
	if n.kill {
		_ = n.cmd.Process.Kill()
		<-n.exited
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGCONT)
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(5 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.exited
	}
}

// Freeze stops the node with SIGSTOP: its ports still accept connections
// (the kernel does) but nothing answers, as with a hung server. Thaw or
// the cleanup resumes it.
func (n *Node) Freeze() { _ = n.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw resumes a frozen node.
func (n *Node) Thaw() { _ = n.cmd.Process.Signal(syscall.SIGCONT) }

// Pid is the searchd process id.
func (n *Node) Pid() int { return n.cmd.Process.Pid }

// Log is searchd's output and log so far, for failure messages.
func (n *Node) Log() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "searchd.log"))
	return n.out.String() + string(b)
}
