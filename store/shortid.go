package store

import (
	"context"
	"fmt"
	"sort"
)

// MinShortID is the fewest characters a printed short id has.
const MinShortID = 7

// ShortIDs returns, for each of ids, the shortest prefix of at least min
// characters that names it alone among every stored session: printed, it
// opens that session (GetSession, ResolveID). Ids not stored are left out.
func (s *Store) ShortIDs(ctx context.Context, ids []string, least int) (map[string]string, error) {
	var all []string
	err := func() error {
		rows, err := s.r.QueryContext(ctx, "SELECT id FROM sessions ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			all = append(all, id)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, s.damaged(fmt.Errorf("list session ids: %w", err))
	}
	return ShortestPrefixes(all, ids, least), nil
}

// ShortestPrefixes returns, for each of ids found in all, its shortest
// prefix of at least `least` bytes that is a prefix of no other id of all (the
// whole id when it prefixes another). all need not be sorted.
func ShortestPrefixes(all, ids []string, least int) map[string]string {
	sorted := append([]string(nil), all...)
	sort.Strings(sorted)
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		i := sort.SearchStrings(sorted, id)
		if i == len(sorted) || sorted[i] != id {
			continue
		}
		n := least
		// In sorted order the ids sharing the longest prefix with id are
		// its neighbours (equal ids are one id).
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(sorted) && sorted[j] != id {
				n = max(n, commonPrefix(id, sorted[j])+1)
			}
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
