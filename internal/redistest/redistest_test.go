package redistest

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

func TestServer_countsCommandsAndSurvivesARestart(t *testing.T) {
	s := Start(t)
	before, err := s.Commands()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, "SET k v\r\nGET k\r\nGET k\r\n")
	buf := make([]byte, 64)
	for got := 0; got < len("+OK\r\n$1\r\nv\r\n$1\r\nv\r\n"); {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	c.Close()
	after, err := s.Commands()
	if err != nil {
		t.Fatal(err)
	}
	if d := after["get"] - before["get"]; d != 2 {
		t.Errorf("get ran %d times, want 2 (before %v, after %v)", d, before, after)
	}
	if d := after["set"] - before["set"]; d != 1 {
		t.Errorf("set ran %d times, want 1", d)
	}
	if after[""] < before[""]+3 {
		t.Errorf("total %d → %d", before[""], after[""])
	}
	s.Kill()
	if _, err := s.Commands(); err == nil {
		t.Error("a killed server answered INFO")
	}
	s.Restart()
	if _, err := s.Commands(); err != nil {
		t.Errorf("after a restart: %v", err)
	}
}

func TestStartPersistent_keepsWritesAcrossAKill(t *testing.T) {
	s := StartPersistent(t)
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, "SET k v\r\n")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "+OK\r\n" {
		t.Fatalf("SET answered %q, %v", buf, err)
	}
	c.Close()
	s.Kill()
	s.Restart()
	c, err = net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET k\r\n")
	buf = make([]byte, 7)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "$1\r\nv\r\n" {
		t.Fatalf("GET after a kill answered %q, %v", buf, err)
	}
}
