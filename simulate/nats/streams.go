package nats

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Streams names the JetStream streams and the worker consumer that an
// Executor and its workers share, and the settings used when they are
// created. Whichever process starts first creates them; later processes
// use them as they are (their settings here are then ignored), so give the
// analyst and the workers the same Streams.
//
// Two streams are used, both with work-queue retention (a message is
// deleted once acknowledged): <PREFIX>_WORK holds blocks on the subjects
// <prefix>.work.<run>.<call>, and one durable consumer, "workers", hands
// each block to one worker at a time; <PREFIX>_RESULTS holds results on
// <prefix>.result.<run>, each run reading its own subject through its own
// durable consumer.
type Streams struct {
	// Prefix is the subject prefix, 1 to 32 ASCII letters, digits, '-' or
	// '_'; the stream names are its upper case followed by _WORK and
	// _RESULTS. Zero means "privinfer". Different prefixes on one server
	// are independent pools of workers.
	Prefix string
	// AckWait is how long a block may go without an acknowledgement or a
	// worker heartbeat before the server delivers it to another worker.
	// Workers send heartbeats every AckWait/3 while they simulate, so a
	// long block is not redelivered while its worker is alive; a worker that
	// dies or loses its connection has its block redelivered after AckWait.
	// Zero means 30 s.
	AckWait time.Duration
	// MaxDeliver is the number of times a block is delivered before the
	// run fails with ErrDeliveries (a simulator that kills its worker, for
	// instance). Zero means 5.
	MaxDeliver int
	// Memory keeps the streams in memory instead of files. The zero value,
	// file storage, survives a server restart in the middle of a run.
	Memory bool
	// MaxAge removes blocks and results left behind by runs that ended
	// without cleaning up (a killed analyst). Zero means 24 h.
	MaxAge time.Duration
}

// Defaults.
const (
	defaultPrefix     = "privinfer"
	defaultAckWait    = 30 * time.Second
	defaultMaxDeliver = 5
	defaultMaxAge     = 24 * time.Hour
	workerConsumer    = "workers"
)

// Validate reports an invalid setting with an error wrapping ErrInvalid.
func (s Streams) Validate() error {
	if s.Prefix != "" {
		if len(s.Prefix) > 32 {
			return invalidf("Streams.Prefix %q is longer than 32 bytes", s.Prefix)
		}
		for _, c := range []byte(s.Prefix) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return invalidf("Streams.Prefix %q may hold only ASCII letters, digits, '-' and '_'", s.Prefix)
			}
		}
	}
	if s.AckWait < 0 || (s.AckWait > 0 && s.AckWait < 100*time.Millisecond) {
		return invalidf("Streams.AckWait must be 0 or at least 100ms, got %v", s.AckWait)
	}
	if s.MaxDeliver < 0 {
		return invalidf("Streams.MaxDeliver must be >= 0, got %d", s.MaxDeliver)
	}
	if s.MaxAge < 0 || (s.MaxAge > 0 && s.MaxAge < time.Second) {
		return invalidf("Streams.MaxAge must be 0 or at least 1s, got %v", s.MaxAge)
	}
	return nil
}

func (s Streams) withDefaults() Streams {
	if s.Prefix == "" {
		s.Prefix = defaultPrefix
	}
	if s.AckWait == 0 {
		s.AckWait = defaultAckWait
	}
	if s.MaxDeliver == 0 {
		s.MaxDeliver = defaultMaxDeliver
	}
	if s.MaxAge == 0 {
		s.MaxAge = defaultMaxAge
	}
	return s
}

func (s Streams) workStream() string   { return strings.ToUpper(s.Prefix) + "_WORK" }
func (s Streams) resultStream() string { return strings.ToUpper(s.Prefix) + "_RESULTS" }
func (s Streams) workSubject(run runID, call uint64) string {
	return fmt.Sprintf("%s.work.%s.%d", s.Prefix, run, call)
}
func (s Streams) resultSubject(run runID) string { return s.Prefix + ".result." + run.String() }
func (s Streams) cancelSubject(run runID, call uint64) string {
	return fmt.Sprintf("%s.cancel.%s.%d", s.Prefix, run, call)
}

func (s Streams) storage() jetstream.StorageType {
	if s.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

// ensureStream returns the stream named in cfg, creating it if missing.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	return getOrCreate(ctx, "stream", cfg.Name,
		func(ctx context.Context) (jetstream.Stream, error) { return js.Stream(ctx, cfg.Name) },
		func(ctx context.Context) (jetstream.Stream, error) { return js.CreateStream(ctx, cfg) },
		jetstream.ErrStreamNotFound, jetstream.ErrStreamNameAlreadyInUse)
}

// getOrCreate returns the JetStream object (stream or consumer, named by
// kind and name) that get finds, or, when get fails with notFound, the one
// create makes. When create loses a race with another creator (it fails
// with exists), the object is looked up again. Other errors are returned
// naming the object.
func getOrCreate[T any](ctx context.Context, kind, name string,
	get, create func(context.Context) (T, error), notFound, exists error) (T, error) {
	var zero T
	v, err := get(ctx)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, notFound) {
		return zero, fmt.Errorf("nats: %s %s: %w", kind, name, err)
	}
	v, err = create(ctx)
	if errors.Is(err, exists) {
		v, err = get(ctx)
	}
	if err != nil {
		return zero, fmt.Errorf("nats: creating %s %s: %w", kind, name, err)
	}
	return v, nil
}

// ensureStreams creates the work and result streams if missing.
func (s Streams) ensureStreams(ctx context.Context, js jetstream.JetStream) (work, results jetstream.Stream, err error) {
	work, err = ensureStream(ctx, js, s.queueStream(s.workStream(), s.Prefix+".work.>"))
	if err != nil {
		return nil, nil, err
	}
	results, err = ensureStream(ctx, js, s.queueStream(s.resultStream(), s.Prefix+".result.>"))
	if err != nil {
		return nil, nil, err
	}
	return work, results, nil
}

// queueStream is the configuration of the work-queue stream name holding
// subjects: s's storage and age limit, duplicates detected for 2 minutes.
func (s Streams) queueStream(name, subjects string) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:       name,
		Subjects:   []string{subjects},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    s.storage(),
		MaxAge:     s.MaxAge,
		Duplicates: 2 * time.Minute,
	}
}

// ensureConsumer returns the durable consumer named in cfg on st,
// creating it if missing.
func ensureConsumer(ctx context.Context, st jetstream.Stream, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	return getOrCreate(ctx, "consumer", cfg.Durable,
		func(ctx context.Context) (jetstream.Consumer, error) { return st.Consumer(ctx, cfg.Durable) },
		func(ctx context.Context) (jetstream.Consumer, error) { return st.CreateConsumer(ctx, cfg) },
		jetstream.ErrConsumerNotFound, jetstream.ErrConsumerExists)
}

// workerConsumer returns the shared consumer of the work stream.
func (s Streams) workers(ctx context.Context, work jetstream.Stream) (jetstream.Consumer, error) {
	return ensureConsumer(ctx, work, jetstream.ConsumerConfig{
		Durable:       workerConsumer,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.AckWait,
		MaxDeliver:    s.MaxDeliver,
		FilterSubject: s.Prefix + ".work.>",
		MaxAckPending: 100000,
	})
}

// maxDeliveriesSubject is the advisory the server publishes when a block
// has been delivered MaxDeliver times.
func (s Streams) maxDeliveriesSubject() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + s.workStream() + "." + workerConsumer
}
