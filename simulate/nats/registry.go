package nats

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
)

// Registry maps simulator names to simulators. Blocks travel with the name
// of their simulator, never with code: a worker looks the name up in its
// own Registry, so every worker must register, under the same name, the
// same simulator the analyst's engine executes (the same model, settings
// and, for a private model, the same mechanism composed with
// simulate.Private). The analyst's Executor uses a Registry of its own to
// name the simulators it is given.
//
// The zero value is an empty registry ready to use; a Registry is safe
// for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	names map[string]simulate.Simulator
}

// validName reports whether s is usable as a simulator name: 1 to 255
// bytes of letters, digits and . _ - : /.
func validName(s string) bool {
	if len(s) == 0 || len(s) > maxName {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '-', c == ':', c == '/':
		default:
			return false
		}
	}
	return true
}

// Register adds sim under name. The name has 1 to 255 bytes of ASCII
// letters, digits and . _ - : /; registering a name twice, a nil simulator
// or one with StatDim < 1 is an error wrapping ErrInvalid.
func (r *Registry) Register(name string, sim simulate.Simulator) error {
	if !validName(name) {
		return invalidf("simulator name %q must have 1 to %d letters, digits or . _ - : /", name, maxName)
	}
	if argcheck.Nil(sim) {
		return invalidf("simulator %q is nil", name)
	}
	if d := sim.StatDim(); d < 1 {
		return invalidf("simulator %q has StatDim %d, must be >= 1", name, d)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.names[name]; ok {
		return invalidf("simulator name %q is already registered", name)
	}
	if r.names == nil {
		r.names = make(map[string]simulate.Simulator)
	}
	r.names[name] = sim
	return nil
}

// Lookup returns the simulator registered under name, or an error wrapping
// ErrUnknownSimulator that lists the registered names.
func (r *Registry) Lookup(name string) (simulate.Simulator, error) {
	r.mu.RLock()
	sim, ok := r.names[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (registered: %v)", ErrUnknownSimulator, name, r.Names())
	}
	return sim, nil
}

// Names returns the registered names in sorted order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.names))
	for n := range r.names {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NameOf returns the name under which sim itself (the same value, compared
// with ==) is registered.
func (r *Registry) NameOf(sim simulate.Simulator) (string, bool) {
	if sim == nil || !canCompare(sim) {
		return "", false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for n, s := range r.names {
		if canCompare(s) && s == sim {
			return n, true
		}
	}
	return "", false
}

// canCompare reports whether v can be compared with == without panicking.
func canCompare(v any) bool {
	return !argcheck.Nil(v) && reflect.ValueOf(v).Comparable()
}
