// Package redistest starts throwaway redis-server processes for tests:
// on a free loopback port, in a temporary directory, without persistence
// unless asked. Tests skip (saying why) when redis-server is not
// installed.
package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Options of a test server.
type Options struct {
	Password string
	TLS      bool // serve TLS only, with a fresh CA (CAFile)
}

// Server is a running redis-server.
type Server struct {
	Port   int
	Dir    string
	CAFile string // with TLS: the CA bundle that signed the server's certificate
	opt    Options
	cmd    *exec.Cmd
	t      testing.TB
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (apt-get install redis-server); skipping the Redis test")
	}
	s := &Server{Dir: t.TempDir(), opt: opt, t: t, Port: FreePort(t)}
	if opt.TLS {
		s.makeCerts()
	}
	s.start()
	t.Cleanup(s.Kill)
	return s
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// URL is the client URL, password included.
func (s *Server) URL() string {
	scheme := "redis"
	if s.opt.TLS {
		scheme = "rediss"
	}
	auth := ""
	if s.opt.Password != "" {
		auth = ":" + s.opt.Password + "@"
	}
	return fmt.Sprintf("%s://%s127.0.0.1:%d", scheme, auth, s.Port)
}

func (s *Server) start() {
	args := []string{"--bind", "127.0.0.1", "--dir", s.Dir, "--save", "", "--appendonly", "no",
		"--protected-mode", "no", "--logfile", filepath.Join(s.Dir, "redis.log")}
	if s.opt.TLS {
		args = append(args, "--port", "0", "--tls-port", strconv.Itoa(s.Port),
			"--tls-cert-file", filepath.Join(s.Dir, "server.pem"), "--tls-key-file", filepath.Join(s.Dir, "server.key"),
			"--tls-ca-cert-file", s.CAFile, "--tls-auth-clients", "no")
	} else {
		args = append(args, "--port", strconv.Itoa(s.Port))
	}
	if s.opt.Password != "" {
		args = append(args, "--requirepass", s.opt.Password)
	}
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	// Ready when the port accepts connections.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
			s.t.Fatalf("redis-server did not start on port %d: %v\n%s", s.Port, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server at once (SIGKILL: no chance to save anything).
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart kills the server and starts a new, empty one on the same port.
func (s *Server) Restart() {
	s.Kill()
	s.start()
}

// Log returns the server's log, for failure messages.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
	return string(b)
}

// makeCerts writes a CA and a server certificate for 127.0.0.1.
func (s *Server) makeCerts() {
	t := s.t
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hmmgo test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(s.Dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s.CAFile = write("ca.pem", "CERTIFICATE", caDER)
	write("server.pem", "CERTIFICATE", der)
	write("server.key", "EC PRIVATE KEY", keyDER)
}
