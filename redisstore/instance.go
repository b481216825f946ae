package redisstore

import (
	"os"
	"strconv"
)

// defaultInstance names this process: its host name and process id.
func defaultInstance() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}
