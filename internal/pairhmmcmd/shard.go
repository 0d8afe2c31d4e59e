package pairhmmcmd

import (
	"errors"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

func Merge(env cli.Env, files []*shard.File) error { return errors.New("todo") }
