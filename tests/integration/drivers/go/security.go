// The request's optional "security" object: TLS (SSL, SASL_SSL) and SASL
// (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER) for every client the driver creates.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

type security struct {
	Protocol  string  `json:"protocol"`  // SSL, SASL_PLAINTEXT, SASL_SSL
	Mechanism string  `json:"mechanism"` // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER
	User      string  `json:"user"`
	Password  string  `json:"password"`
	Token     string  `json:"token"`      // OAUTHBEARER: the bearer token
	TokenAuth bool    `json:"token_auth"` // SCRAM with a delegation token: User is its id, Password its HMAC
	CA        string  `json:"ca"`         // PEM file of the CA the broker's certificate chains to
	Cert      *string `json:"cert"`       // client certificate (PEM) for mutual TLS, or null
	Key       *string `json:"key"`        // its key (PEM), or null
}

func securityOpts(s *security) ([]kgo.Opt, error) {
	if s == nil || s.Protocol == "" || s.Protocol == "PLAINTEXT" {
		return nil, nil
	}
	var opts []kgo.Opt
	switch s.Protocol {
	case "SSL", "SASL_SSL":
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if s.CA != "" {
			pem, err := os.ReadFile(s.CA)
			if err != nil {
				return nil, fmt.Errorf("security.ca: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("security.ca: no certificate in %s", s.CA)
			}
		}
		if s.Cert != nil && *s.Cert != "" {
			if s.Key == nil || *s.Key == "" {
				return nil, errors.New("security.cert needs security.key")
			}
			pair, err := tls.LoadX509KeyPair(*s.Cert, *s.Key)
			if err != nil {
				return nil, fmt.Errorf("security.cert/key: %w", err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		// kgo sets ServerName from each broker's host when it is empty.
		opts = append(opts, kgo.DialTLSConfig(cfg))
	case "SASL_PLAINTEXT":
	default:
		return nil, fmt.Errorf("security.protocol %q: want SSL, SASL_PLAINTEXT or SASL_SSL", s.Protocol)
	}
	if s.Protocol == "SSL" {
		return opts, nil
	}
	var m sasl.Mechanism
	switch s.Mechanism {
	case "PLAIN":
		m = plain.Auth{User: s.User, Pass: s.Password}.AsMechanism()
	case "SCRAM-SHA-256":
		m = scram.Auth{User: s.User, Pass: s.Password, IsToken: s.TokenAuth}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		m = scram.Auth{User: s.User, Pass: s.Password, IsToken: s.TokenAuth}.AsSha512Mechanism()
	case "OAUTHBEARER":
		m = oauth.Auth{Token: s.Token}.AsMechanism()
	default:
		return nil, fmt.Errorf("security.mechanism %q: want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
			s.Mechanism)
	}
	return append(opts, kgo.SASL(m)), nil
}

// authFailed: the broker refused our credentials (SaslAuthenticate's
// SASL_AUTHENTICATION_FAILED), as opposed to any other failure.
func authFailed(err error) bool {
	return errors.Is(err, kerr.SaslAuthenticationFailed)
}

// refusedLogin: with SASL, one Ping first. franz-go retries a refused login
// like any broker error, so an op would otherwise end in its own timeout
// ("context deadline exceeded") with the cause lost. Only a refusal is
// returned: anything else (a broker not up yet) is left to the op's retries.
func refusedLogin(req *request) error {
	if req.Security == nil || (req.Security.Protocol != "SASL_PLAINTEXT" && req.Security.Protocol != "SASL_SSL") {
		return nil
	}
	cl, err := kgo.NewClient(baseOpts(req)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); authFailed(err) {
		return fmt.Errorf("SASL %s login as %q: %w", req.Security.Mechanism, req.Security.User, err)
	}
	return nil
}
