package cli

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// CheckpointsEnv names the environment variable that gives the default of
// the -checkpoints flag: examples/reproduce sets it to a folder of its
// cache for every example it runs, so that a long part stopped half-way
// continues from its last round when it runs again, without a flag that
// would change the part's command.
const CheckpointsEnv = "PRIVINFER_CHECKPOINTS"

// Checkpoints registers the -checkpoints flag on fs: a folder in which
// every SPPE or SPLE run of the example keeps a checkpoint after each round
// (sbi.Config.Checkpoint) and from which a run with the same settings
// continues. Its default is $PRIVINFER_CHECKPOINTS.
func Checkpoints(fs *flag.FlagSet) *string {
	return fs.String("checkpoints", os.Getenv(CheckpointsEnv),
		"folder where every SPPE/SPLE run keeps its state after each round and from which the same run continues after a stop (sbi.Config.Checkpoint; default $"+CheckpointsEnv+")")
}

// PrepareCheckpoints creates the -checkpoints folder dir when it is set.
func PrepareCheckpoints(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-checkpoints: %w", err)
	}
	return nil
}

// CheckpointFile returns the checkpoint of one run in the folder dir, ""
// when dir is empty: method and a hash of key, which must hold everything
// that tells the example's runs apart (settings, seed, release), name it.
// sbi refuses a checkpoint of other settings, so a key that is too coarse
// gives an error, never a wrong result.
func CheckpointFile(dir, method string, key ...any) string {
	if dir == "" {
		return ""
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%q|%#v", method, key)
	return filepath.Join(dir, fmt.Sprintf("%s-%016x.ckpt", method, h.Sum64()))
}
