// Package embedded starts a NATS server with JetStream inside the calling
// process, on a loopback address, for tests and single-machine examples.
package embedded

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configures Start.
type Options struct {
	// Dir is the JetStream storage directory; required.
	Dir string
	// Port is the TCP port on 127.0.0.1. Zero picks a free one.
	Port int
	// MaxPayload is the server's message size limit in bytes. Zero means
	// the server's default (1 MiB).
	MaxPayload int32
}

// Start starts a server and waits until it accepts connections. Stop it
// with Shutdown and WaitForShutdown.
func Start(o Options) (*server.Server, error) {
	if o.Dir == "" {
		return nil, errors.New("embedded: Options.Dir is empty")
	}
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   o.Dir,
		MaxPayload: o.MaxPayload,
		NoLog:      true,
		NoSigs:     true,
		HTTPPort:   0,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("embedded: server not ready after 10s")
	}
	return s, nil
}
