package redisstore

import (
	"os"
	"strconv"
)

// DefaultInstance is Options.Instance's default: this process's host
// name and process id, "HOST-PID".
func DefaultInstance() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}
