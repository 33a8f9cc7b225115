package cli

import (
	"flag"
	"strconv"
)

// Count is the configuration of a Monte Carlo study whose one flag beside
// the common ones is a count (of repetitions, data sets, …).
type Count struct {
	Common
	// N is the value of the count flag.
	N int
}

// CountParser returns the parse function, for Program and Runner, of a
// study whose one flag beside the common ones (default seed 1) is the
// integer -name: def when not given, quick under -quick when not given,
// and at least min (a usage error otherwise). usage is the flag's help
// text, which should state the -quick value.
func CountParser(name string, def, quick, min int, usage string) func(fs *flag.FlagSet, args []string) (Count, error) {
	return func(fs *flag.FlagSet, args []string) (Count, error) {
		var cfg Count
		c := Register(fs, 1)
		fs.IntVar(&cfg.N, name, def, usage)
		if err := Parse(fs, args); err != nil {
			return cfg, err
		}
		cfg.Common = *c
		if err := QuickDefaults(fs, cfg.Quick, map[string]string{name: strconv.Itoa(quick)}); err != nil {
			return cfg, err
		}
		return cfg, AtLeast(name, cfg.N, min)
	}
}
