package middleware_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/middleware"
)

func TestBearerToken(t *testing.T) {
	a := middleware.BearerToken(token)
	for _, tc := range []struct {
		cred string
		want error
	}{
		{"", middleware.ErrNoCredentials},
		{"Bearer " + token, nil},
		{"bearer " + token, nil},
		{"BEARER   " + token, nil},
		{"Bearer", middleware.ErrInvalidCredentials},
		{"Bearer ", middleware.ErrInvalidCredentials},
		{"Bearer    ", middleware.ErrInvalidCredentials},
		{"Bearer" + token, middleware.ErrInvalidCredentials},
		{"Basic " + token, middleware.ErrInvalidCredentials},
		{token, middleware.ErrInvalidCredentials},
		{"Bearer " + token + " x", middleware.ErrInvalidCredentials},
		{"Bearer " + token + "\t", middleware.ErrInvalidCredentials},
		{"Bearer " + token[:len(token)-1], middleware.ErrInvalidCredentials},
		{"Bearer " + token + "0", middleware.ErrInvalidCredentials},
	} {
		p, err := a.Authenticate(context.Background(), tc.cred)
		if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("%q: err %v, want %v", tc.cred, err, tc.want)
		}
		if err == nil && p != middleware.BearerPrincipal {
			t.Errorf("%q: principal %v", tc.cred, p)
		}
	}
}

func TestBearerToken_panicsOnAnEmptyToken(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	middleware.BearerToken("")
}
