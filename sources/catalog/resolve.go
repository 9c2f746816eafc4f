package catalog

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local"
)

// ErrUnknownCorpus is matched by the errors of Resolve: a name that names
// no corpus of the home, or several.
var ErrUnknownCorpus = errors.New("no such corpus")

// UnknownCorpusError is a name that resolves to no corpus (Matches empty)
// or to several that differ only in case (Matches holds them).
type UnknownCorpusError struct {
	// Given is the name as it was given.
	Given string
	// Near is the known corpus closest to it ("" when none is close).
	Near string
	// Known are the home's corpora.
	Known []string
	// Matches are the corpora a name matched ignoring case, when more
	// than one did.
	Matches []string
}

func (e *UnknownCorpusError) Error() string {
	given := strconv.Quote(e.Given)
	switch {
	case len(e.Matches) > 1:
		return fmt.Sprintf("%s matches several corpora that differ only in case (%s): name one exactly", given, strings.Join(e.Matches, ", "))
	case e.Near != "":
		return fmt.Sprintf("no corpus is named %s — did you mean %q?", given, e.Near)
	case len(e.Known) == 0:
		return fmt.Sprintf("no corpus is named %s, and this home has none yet (create one with `prefrag index --corpus NAME PATH`)", given)
	}
	return fmt.Sprintf("no corpus is named %s; the corpora are %s", given, strings.Join(e.Known, ", "))
}

func (e *UnknownCorpusError) Is(target error) bool { return target == ErrUnknownCorpus }

// Resolved is a name resolved to a corpus.
type Resolved struct {
	// Name is the corpus's own name.
	Name string
	// Note says how a name that was not the corpus's exact name was read
	// ("" when it was: spaces around it and a "local:" prefix need no
	// note).
	Note string
}

// Resolve finds the corpus a name given by a person (a flag, the config
// file, a recorded session, an agent's tool argument) means, among the
// corpora under dir, local or remote: spaces around it are dropped, a
// source name's "local:" prefix is read as the corpus it names
// ("local:notes" is notes), and a name that differs from exactly one
// corpus's only in case is that corpus, with a note. Anything else is an
// *UnknownCorpusError with the closest known name, if one is close: a
// name must never be taken for a corpus it does not name, nor silently
// name none.
func Resolve(dir, given string) (Resolved, error) {
	name := strings.TrimSpace(given)
	if n, ok := sources.ParseName(name); ok && n.Kind.IsCorpus() {
		name = strings.TrimSpace(n.ID)
	}
	if local.ValidateName(name) == nil && registered(dir, name) {
		return Resolved{Name: name}, nil
	}
	known, err := Names(dir)
	if err != nil {
		return Resolved{}, err
	}
	var folded []string
	for _, k := range known {
		if strings.EqualFold(k, name) {
			folded = append(folded, k)
		}
	}
	switch len(folded) {
	case 1:
		return Resolved{Name: folded[0], Note: fmt.Sprintf("%q is read as corpus %q (corpus names are case-sensitive: write it %s)", given, folded[0], folded[0])}, nil
	case 0:
		return Resolved{}, &UnknownCorpusError{Given: given, Near: closest(name, known), Known: known}
	}
	return Resolved{}, &UnknownCorpusError{Given: given, Known: known, Matches: folded}
}

// closest is the known name nearest to name, ignoring case.
func closest(name string, known []string) string {
	lower := make([]string, len(known))
	for i, k := range known {
		lower[i] = strings.ToLower(k)
	}
	near := suggest.Closest(strings.ToLower(name), lower)
	for i, l := range lower {
		if l == near && near != "" {
			return known[i]
		}
	}
	return ""
}

// Names lists the names of the corpora under dir, local and remote,
// sorted, without opening them (List reads each one's statistics). A
// missing dir has none.
func Names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading corpora directory: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && local.ValidateName(e.Name()) == nil && registered(dir, e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
