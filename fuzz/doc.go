// Package fuzz holds the cross-package fuzz targets: whole streams fed to a
// connection. Targets for one package live beside its code
// (codec/fuzz_*_test.go). Run one with
//
//	go test -run '^$' -fuzz FuzzConn -fuzztime 60s ./fuzz
//
// Seeds are in testdata/fuzz/<Target>/ (Go's corpus format).
package fuzz
