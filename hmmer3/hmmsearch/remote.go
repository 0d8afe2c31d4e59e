package hmmsearch

import "errors"

func (s *search) runRemote() error { return errors.New("--redis: not yet") }
