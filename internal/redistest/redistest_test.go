package redistest

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
)

// ping sends PING over a plain connection (no client library).
func ping(t *testing.T, port int, auth string) string {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if auth != "" {
		fmt.Fprintf(c, "AUTH %s\r\n", auth)
	}
	fmt.Fprint(c, "PING\r\n")
	r := bufio.NewReader(c)
	var last string
	for i := 0; i < 1+len(auth[:min(len(auth), 1)]); i++ {
		last, _ = r.ReadString('\n')
	}
	return strings.TrimSpace(last)
}

func TestStartRestartPassword(t *testing.T) {
	s := Start(t, Options{Password: "pw"})
	if got := ping(t, s.Port, "pw"); got != "+PONG" {
		t.Fatalf("PING: %q", got)
	}
	if !strings.HasPrefix(s.URL(), "redis://:pw@127.0.0.1:") {
		t.Errorf("URL %s", s.URL())
	}
	s.Restart()
	if got := ping(t, s.Port, "pw"); got != "+PONG" {
		t.Fatalf("PING after restart: %q", got)
	}
}

func TestTLSURL(t *testing.T) {
	s := Start(t, Options{TLS: true})
	if !strings.HasPrefix(s.URL(), "rediss://127.0.0.1:") || s.CAFile == "" {
		t.Errorf("URL %s, CA %q", s.URL(), s.CAFile)
	}
}
