package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// The interface sources/web declares for its cache.
type webCache interface {
	Get(ctx context.Context, key string) ([]sources.Document, bool, error)
	Put(ctx context.Context, key string, docs []sources.Document) error
}

var _ webCache = WebCache{}

func TestWebCacheTTL(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c := WebCache{Store: s, TTL: time.Hour, now: clock}
	docs := []sources.Document{
		{ID: "https://example.org/a", Title: "A", Text: "alpha", URL: "https://example.org/a", Source: "web:duckduckgo", Locator: "https://example.org/a"},
		{ID: "https://example.org/b", Title: "B", Text: "beta\x1b[31m", URL: "https://example.org/b", Source: "web:duckduckgo"},
	}
	if err := c.Put(ctx, "duckduckgo|pH inventor|5", docs); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, "duckduckgo|nothing|5", nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		key     string
		age     time.Duration
		offline bool
		hit     bool
		want    []sources.Document
	}{
		{"fresh", "duckduckgo|pH inventor|5", 59 * time.Minute, false, true, docs},
		{"expired", "duckduckgo|pH inventor|5", 61 * time.Minute, false, false, nil},
		{"expired but offline", "duckduckgo|pH inventor|5", 30 * 24 * time.Hour, true, true, docs},
		{"empty result is cached", "duckduckgo|nothing|5", time.Minute, false, true, []sources.Document{}},
		{"missing", "duckduckgo|other|5", 0, true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c
			c.Offline = tt.offline
			c.now = func() time.Time { return now.Add(tt.age) }
			got, hit, err := c.Get(ctx, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if hit != tt.hit || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Get = %v, %v; want %v, %v", got, hit, tt.want, tt.hit)
			}
		})
	}
	// Put replaces the entry and restarts its clock.
	now = now.Add(2 * time.Hour)
	if err := c.Put(ctx, "duckduckgo|pH inventor|5", docs[:1]); err != nil {
		t.Fatal(err)
	}
	if got, hit, _ := c.Get(ctx, "duckduckgo|pH inventor|5"); !hit || len(got) != 1 {
		t.Errorf("after replacing: %v, %v", got, hit)
	}
	// Purge drops old entries only.
	n, err := s.PurgeWebCache(ctx, time.Since(now.Add(-time.Minute)))
	if err != nil || n != 1 {
		t.Errorf("PurgeWebCache = %d, %v; want 1 (the old empty result)", n, err)
	}
}

func TestWebCacheRecordsSessionKeys(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "run-1", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	c := WebCache{Store: s}.ForSession("run-1")
	docs := []sources.Document{{ID: "u", Title: "t", Source: "web:searxng"}}
	if err := c.Put(ctx, "k2", docs); err != nil {
		t.Fatal(err)
	}
	if err := (WebCache{Store: s}).Put(ctx, "k1", docs); err != nil { // no session
		t.Fatal(err)
	}
	if _, hit, err := c.Get(ctx, "k1"); !hit || err != nil {
		t.Fatalf("Get k1: %v %v", hit, err)
	}
	if _, hit, _ := c.Get(ctx, "k3"); hit { // a miss is not recorded
		t.Fatal("hit on a missing key")
	}
	if err := s.AddSessionCacheKey(ctx, "run-1", "k2"); err != nil { // twice is fine
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if !equalStrings(rec.CacheKeys, []string{"k2", "k1"}) {
		t.Errorf("cache keys = %q, want [k2 k1] in first-use order", rec.CacheKeys)
	}
	if err := s.AddSessionCacheKey(ctx, "no-such-run", "k1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	// The cache of a session not stored yet still caches.
	early := WebCache{Store: s}.ForSession("not-yet")
	if err := early.Put(ctx, "k4", docs); err != nil {
		t.Fatalf("Put for an unstored session: %v", err)
	}
	if _, hit, err := early.Get(ctx, "k4"); !hit || err != nil {
		t.Fatalf("Get for an unstored session: %v %v", hit, err)
	}
}

func TestSetJudgeVerdict(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	createFixture(t, s, "v", time.Now())
	tests := []struct {
		seq     int
		verdict string
		want    error
	}{
		{5, "agree", nil},        // the step-1 selection event
		{10, "disagree", nil},    // the step-2 selection event
		{10, "agree", nil},       // changed mind
		{2, "agree", ErrInvalid}, // a thought
		{99, "agree", ErrNotFound},
	}
	for _, tt := range tests {
		if err := s.SetJudgeVerdict(ctx, "v", tt.seq, tt.verdict); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("SetJudgeVerdict(%d, %q) = %v, want %v", tt.seq, tt.verdict, err, tt.want)
		}
	}
	rec, _ := s.GetSession(ctx, "v")
	if !reflect.DeepEqual(rec.Verdicts, map[int]string{5: "agree", 10: "agree"}) {
		t.Errorf("verdicts = %v", rec.Verdicts)
	}
	if err := s.SetJudgeVerdict(ctx, "v", 5, ""); err != nil {
		t.Fatal(err)
	}
	rec, _ = s.GetSession(ctx, "v")
	if _, ok := rec.Verdicts[5]; ok || len(rec.Verdicts) != 1 {
		t.Errorf("after clearing: %v", rec.Verdicts)
	}
}

func TestImportRecord(t *testing.T) {
	const impID, otherID = "1a2b3c4d5e6f708192a3b4c5d6e7f809", "ffeeddccbbaa99887766554433221100"
	src := openTemp(t)
	ctx := context.Background()
	createFixture(t, src, impID, time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC))
	if err := src.SetJudgeVerdict(ctx, impID, 10, "disagree"); err != nil {
		t.Fatal(err)
	}
	if err := src.AddSessionCacheKey(ctx, impID, "duckduckgo|q|5"); err != nil {
		t.Fatal(err)
	}
	rec, err := src.GetSession(ctx, impID)
	if err != nil {
		t.Fatal(err)
	}
	dst := openTemp(t)
	if err := dst.ImportRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := dst.GetSession(ctx, impID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Lines, rec.Lines) || !reflect.DeepEqual(got.Verdicts, rec.Verdicts) || !reflect.DeepEqual(got.CacheKeys, rec.CacheKeys) {
		t.Error("imported record differs")
	}
	got.Session.Owner, rec.Session.Owner = Owner{}, Owner{}
	// The import is recorded as one (a re-run then uses no server the
	// file names); the session made here is not.
	if !rec.Session.Imported.IsZero() || got.Session.Imported.IsZero() {
		t.Errorf("imported at %v, made here at %v; want only the import marked", got.Session.Imported, rec.Session.Imported)
	}
	got.Session.Imported = time.Time{}
	if !reflect.DeepEqual(got.Session, rec.Session) {
		t.Errorf("imported session\n%+v\nwant\n%+v", got.Session, rec.Session)
	}
	if err := dst.ImportRecord(ctx, rec); !errors.Is(err, ErrExists) {
		t.Errorf("second import: %v, want ErrExists", err)
	}
	bad := *rec
	bad.Session.ID = otherID
	if err := dst.ImportRecord(ctx, &bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("events of another session: %v, want ErrInvalid", err)
	}
	if _, err := dst.GetSession(ctx, otherID); !errors.Is(err, ErrNotFound) {
		t.Error("a refused import left a session behind")
	}
}
