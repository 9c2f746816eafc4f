package retrieval

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// memSampler records the peak anonymous and file-backed resident memory of
// this process (Linux's /proc/self/status RssAnon and RssFile), sampled every
// 100 ms: the peak RSS the kernel reports counts the index files Bleve maps
// and reads, which the page cache can drop, beside the heap, which it cannot.
type memSampler struct {
	mu             sync.Mutex
	anon, file     int64
	stop, finished chan struct{}
}

func startMemSampler() *memSampler {
	m := &memSampler{stop: make(chan struct{}), finished: make(chan struct{})}
	go func() {
		defer close(m.finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			m.sample()
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memSampler) sample() {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	m.mu.Lock()
	defer m.mu.Unlock()
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		switch string(f[0]) {
		case "RssAnon:":
			m.anon = max(m.anon, kb<<10)
		case "RssFile:":
			m.file = max(m.file, kb<<10)
		}
	}
}

// peaks stops the sampler and returns the peaks in bytes (0 where unknown).
func (m *memSampler) peaks() (anon, file int64) {
	close(m.stop)
	<-m.finished
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.anon, m.file
}
