package nats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The wire format of a block and of its result is little-endian binary;
// every float64 travels as its IEEE-754 bits, so values arrive exactly.
//
// A block message:
//
//	magic "PIB1" | run ID [16] | call u64 | seed u64 | first u64 |
//	rows u32 | dim u32 | statDim u32 | name length u16 | name |
//	θ: rows·dim float64 bits, row-major
//
// A result message:
//
//	magic "PIR1" | run ID [16] | call u64 | first u64 | rows u32 |
//	statDim u32 | status u8 | worker length u16 | worker |
//	status ok:        stats: rows·statDim float64 bits, row-major
//	status row error: index u64 | cause u8 | message length u32 | message
//	status failure:   kind u8 | message length u32 | message
//
// The run ID and call number identify one Execute call of one Executor:
// results carrying another pair are stale and ignored.

var (
	blockMagic  = [4]byte{'P', 'I', 'B', '1'}
	resultMagic = [4]byte{'P', 'I', 'R', '1'}
)

const (
	blockHeader  = 4 + 16 + 8 + 8 + 8 + 4 + 4 + 4 + 2
	resultHeader = 4 + 16 + 8 + 8 + 4 + 4 + 1 + 2
	// maxName bounds a simulator name (and a worker ID) on the wire.
	maxName = 255
	// maxMessage bounds an error message on the wire.
	maxMessage = 4096
)

// errMalformed marks a message that does not decode.
var errMalformed = errors.New("nats: malformed message")

// runID identifies one Executor.
type runID [16]byte

func (id runID) String() string { return fmt.Sprintf("%x", id[:]) }

// wireBlock is a decoded block message.
type wireBlock struct {
	run         runID
	call        uint64
	seed, first uint64
	rows        int
	dim         int
	statDim     int
	name        string
	theta       []float64
}

// blockSize is the encoded size of a block of rows rows of dim values with
// a simulator name of n bytes.
func blockSize(rows, dim, n int) int { return blockHeader + n + 8*rows*dim }

// resultSize is the encoded size of a successful result of rows rows of
// statDim values from a worker ID of n bytes.
func resultSize(rows, statDim, n int) int { return resultHeader + n + 8*rows*statDim }

// appendBlock appends the encoding of b to dst.
func appendBlock(dst []byte, b *wireBlock) []byte {
	dst = append(dst, blockMagic[:]...)
	dst = append(dst, b.run[:]...)
	dst = binary.LittleEndian.AppendUint64(dst, b.call)
	dst = binary.LittleEndian.AppendUint64(dst, b.seed)
	dst = binary.LittleEndian.AppendUint64(dst, b.first)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b.rows))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b.dim))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b.statDim))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(b.name)))
	dst = append(dst, b.name...)
	for _, v := range b.theta {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}

// decodeBlock decodes a block message, checking every length.
func decodeBlock(p []byte) (*wireBlock, error) {
	if len(p) < blockHeader || [4]byte(p[:4]) != blockMagic {
		return nil, fmt.Errorf("%w: not a block (%d bytes)", errMalformed, len(p))
	}
	b := &wireBlock{}
	copy(b.run[:], p[4:20])
	b.call = binary.LittleEndian.Uint64(p[20:])
	b.seed = binary.LittleEndian.Uint64(p[28:])
	b.first = binary.LittleEndian.Uint64(p[36:])
	rows := binary.LittleEndian.Uint32(p[44:])
	dim := binary.LittleEndian.Uint32(p[48:])
	statDim := binary.LittleEndian.Uint32(p[52:])
	n := int(binary.LittleEndian.Uint16(p[56:]))
	p = p[blockHeader:]
	if rows < 1 || dim < 1 || statDim < 1 || n > maxName || len(p) < n {
		return nil, fmt.Errorf("%w: block header (rows %d, dim %d, statDim %d, name %d bytes)", errMalformed, rows, dim, statDim, n)
	}
	b.name = string(p[:n])
	p = p[n:]
	if uint64(len(p)) != 8*uint64(rows)*uint64(dim) {
		return nil, fmt.Errorf("%w: block of %d×%d values has %d payload bytes", errMalformed, rows, dim, len(p))
	}
	if uint64(rows)*uint64(statDim) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: block of %d rows × %d statistics is too large", errMalformed, rows, statDim)
	}
	b.rows, b.dim, b.statDim = int(rows), int(dim), int(statDim)
	b.theta = make([]float64, b.rows*b.dim)
	for i := range b.theta {
		b.theta[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return b, nil
}

// Result statuses.
const (
	statusOK       = 0
	statusRowError = 1
	statusFailure  = 2
)

// Causes of a row error, so that the analyst's error matches the same
// sentinels as an in-process failure.
const (
	causeError        = 0 // the simulator returned an error
	causePanic        = 1 // it panicked (simulate.PanicError)
	causeNonFinite    = 2 // a NaN or infinite statistic (simulate.ErrNonFinite)
	causeInvalidTheta = 3 // an error wrapping simulate.ErrInvalidTheta
	causeInvalid      = 4 // an error wrapping simulate.ErrInvalid
)

// Failure kinds of a result with statusFailure: the block could not be
// simulated at all.
const (
	failUnknownSimulator = 1 // the worker has no simulator of that name
	failMismatch         = 2 // the registered simulator's StatDim differs
	failTooLarge         = 3 // the result would exceed the server's limit
	failOther            = 4
)

// wireResult is a decoded result message.
type wireResult struct {
	run     runID
	call    uint64
	first   uint64
	rows    int
	statDim int
	status  uint8
	worker  string
	stats   []float64 // statusOK

	index   uint64 // statusRowError
	cause   uint8  // statusRowError: a cause* constant
	kind    uint8  // statusFailure
	message string // statusRowError, statusFailure
}

// appendResult appends the encoding of r to dst.
func appendResult(dst []byte, r *wireResult) []byte {
	dst = append(dst, resultMagic[:]...)
	dst = append(dst, r.run[:]...)
	dst = binary.LittleEndian.AppendUint64(dst, r.call)
	dst = binary.LittleEndian.AppendUint64(dst, r.first)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.rows))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.statDim))
	dst = append(dst, r.status)
	w := truncate(r.worker, maxName)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(w)))
	dst = append(dst, w...)
	switch r.status {
	case statusOK:
		for _, v := range r.stats {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
	case statusRowError:
		dst = binary.LittleEndian.AppendUint64(dst, r.index)
		dst = append(dst, r.cause)
		dst = appendMessage(dst, r.message)
	default:
		dst = append(dst, r.kind)
		dst = appendMessage(dst, r.message)
	}
	return dst
}

func appendMessage(dst []byte, m string) []byte {
	m = truncate(m, maxMessage)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(m)))
	return append(dst, m...)
}

// truncate shortens s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// decodeResult decodes a result message, checking every length.
func decodeResult(p []byte) (*wireResult, error) {
	if len(p) < resultHeader || [4]byte(p[:4]) != resultMagic {
		return nil, fmt.Errorf("%w: not a result (%d bytes)", errMalformed, len(p))
	}
	r := &wireResult{}
	copy(r.run[:], p[4:20])
	r.call = binary.LittleEndian.Uint64(p[20:])
	r.first = binary.LittleEndian.Uint64(p[28:])
	rows := binary.LittleEndian.Uint32(p[36:])
	statDim := binary.LittleEndian.Uint32(p[40:])
	r.status = p[44]
	n := int(binary.LittleEndian.Uint16(p[45:]))
	p = p[resultHeader:]
	if rows < 1 || statDim < 1 || n > maxName || len(p) < n || uint64(rows)*uint64(statDim) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: result header (rows %d, statDim %d, worker %d bytes)", errMalformed, rows, statDim, n)
	}
	r.rows, r.statDim = int(rows), int(statDim)
	r.worker = string(p[:n])
	p = p[n:]
	switch r.status {
	case statusOK:
		if uint64(len(p)) != 8*uint64(rows)*uint64(statDim) {
			return nil, fmt.Errorf("%w: result of %d×%d values has %d payload bytes", errMalformed, rows, statDim, len(p))
		}
		r.stats = make([]float64, r.rows*r.statDim)
		for i := range r.stats {
			r.stats[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
		}
		return r, nil
	case statusRowError:
		if len(p) < 9 {
			return nil, fmt.Errorf("%w: row error too short", errMalformed)
		}
		r.index = binary.LittleEndian.Uint64(p)
		r.cause = p[8]
		var err error
		if r.message, err = decodeMessage(p[9:]); err != nil {
			return nil, err
		}
		if r.index < r.first || r.index-r.first >= uint64(r.rows) {
			return nil, fmt.Errorf("%w: row error index %d outside rows %d..%d", errMalformed, r.index, r.first, r.first+uint64(r.rows)-1)
		}
		return r, nil
	case statusFailure:
		if len(p) < 1 {
			return nil, fmt.Errorf("%w: failure too short", errMalformed)
		}
		r.kind = p[0]
		var err error
		r.message, err = decodeMessage(p[1:])
		return r, err
	}
	return nil, fmt.Errorf("%w: result status %d", errMalformed, r.status)
}

func decodeMessage(p []byte) (string, error) {
	if len(p) < 4 {
		return "", fmt.Errorf("%w: message length missing", errMalformed)
	}
	n := binary.LittleEndian.Uint32(p)
	if n > maxMessage || uint64(len(p)-4) != uint64(n) {
		return "", fmt.Errorf("%w: message of %d bytes in %d", errMalformed, n, len(p)-4)
	}
	return string(p[4:]), nil
}
