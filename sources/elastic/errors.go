package elastic

import (
	"errors"
	"fmt"

	"github.com/prefrag/prefrag/sources/remote"
)

// Errors a search or health check may be matched against (errors.Is).
// Every one also matches sources.ErrUnavailable: to the engine an
// Elasticsearch corpus that cannot answer is an unavailable source, and its
// trouble becomes a notice, never a crash.
var (
	ErrAuth          = errors.New("elasticsearch refused the credentials")
	ErrIndexNotFound = errors.New("elasticsearch index not found")
	ErrBusy          = errors.New("elasticsearch busy")
	ErrServer        = errors.New("elasticsearch server error")
	ErrShards        = errors.New("elasticsearch shard failures")
)

// Error is an HTTP-level failure of one request.
type Error struct {
	// Source is "local:<corpus>".
	Source string
	Status int
	// Kind is one of the Err* sentinels above, or ErrBadResponse.
	Kind error
	// Detail is the cluster's "type: reason", cut short and redacted.
	Detail string
	// AuthHint names the environment variable(s) the credentials come
	// from ("$ES_API_KEY"), "" when none are configured.
	AuthHint string
	Index    string
}

func (e *Error) Error() string {
	head := e.Source + " unavailable: "
	switch e.Kind {
	case ErrAuth:
		how := "no credentials are configured: register the corpus again with --api-key-env VAR or --user-env VAR --password-env VAR"
		if e.AuthHint != "" {
			how = "check the credentials in " + e.AuthHint
		}
		return fmt.Sprintf("%sthe cluster refused access (HTTP %d): %s", head, e.Status, how)
	case ErrIndexNotFound:
		return fmt.Sprintf("%sthe cluster has no index %q (HTTP 404); check --index with `prefrag corpora`", head, e.Index)
	case ErrBusy:
		return fmt.Sprintf("%sthe cluster is busy (HTTP 429) and did not answer within the timeout", head)
	}
	msg := fmt.Sprintf("%sHTTP %d", head, e.Status)
	if e.Status == 0 {
		msg = head + "bad answer"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) Is(target error) bool { return remote.Unavailable.Is(e.Kind, target) }

// shardsMissing says which shards of a search did not answer, for a
// remote.PartialError.
func shardsMissing(failed, total int, reason string) string {
	if failed == 0 {
		return "timed out on the cluster's side"
	}
	msg := fmt.Sprintf("answered from %d of %d shards (%d failed", total-failed, total, failed)
	if reason != "" {
		msg += ": " + reason
	}
	return msg + ")"
}
