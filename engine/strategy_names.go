package engine

import "sort"

// strategies maps a strategy name to its runner. Filled in strategies.go.
var strategies = map[string]strategyFunc{}

// StrategyNames lists the known strategies, sorted.
func StrategyNames() []string {
	names := make([]string, 0, len(strategies))
	for n := range strategies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
