package apicheck

import (
	"fmt"
	"strconv"
)

func itoa(n int) string                         { return strconv.Itoa(n) }
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
