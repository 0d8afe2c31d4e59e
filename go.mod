module github.com/hmmgo/hmmgo

go 1.24
