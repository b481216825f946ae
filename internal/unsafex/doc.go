// Package unsafex holds the project's operations on memory through package
// unsafe: each one small, stating what its callers must guarantee, with a
// test. Code elsewhere may hold an unsafe.Pointer it got from reflect, but
// reads and writes memory through it only here.
package unsafex
