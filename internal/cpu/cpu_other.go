//go:build !amd64 || purego

package cpu

func detect() X86 { return X86{} }
