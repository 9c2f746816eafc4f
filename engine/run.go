package engine

import "context"

type strategyFunc func(ctx context.Context, r *run) error

type run struct{}
