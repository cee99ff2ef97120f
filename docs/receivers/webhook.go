// A receiver of the gateway's webhooks in Go, standard library only: both signature schemes of docs/webhooks.md.
// In your own server, call the function of your scheme with the raw body and r.Header. As is, this file is an
// endpoint:
//
//	WEBHOOK_SECRET='whsec_...' WEBHOOK_SIGNATURE_SCHEME=pt PORT=8099 go run webhook.go
//
// WEBHOOK_SECRET takes "new,old" while you move to a rotated secret: either one verifies.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const toleranceSeconds = 300

var timestampPattern = regexp.MustCompile(`^[0-9]{1,12}$`)

func isFresh(timestamp string) bool {
	if !timestampPattern.MatchString(timestamp) {
		return false
	}
	seconds, _ := strconv.ParseInt(timestamp, 10, 64)
	age := time.Now().Unix() - seconds
	return age <= toleranceSeconds && age >= -toleranceSeconds
}

// VerifyPTWebhook checks X-PT-Signature (`pt`): `sha256=` + hex HMAC-SHA256 of "{timestamp}.{body}" with the secret
// as shown.
func VerifyPTWebhook(body []byte, header http.Header, secrets []string) bool {
	timestamp := header.Get("X-PT-Timestamp")
	if len(body) == 0 || !isFresh(timestamp) {
		return false
	}
	// X-PT-Signature-Previous: the same signature made with the replaced secret, during a rotation's overlap.
	received := []string{header.Get("X-PT-Signature"), header.Get("X-PT-Signature-Previous")}
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(timestamp + "."))
		mac.Write(body)
		expected := []byte("sha256=" + hex.EncodeToString(mac.Sum(nil)))
		for _, signature := range received {
			if hmac.Equal(expected, []byte(signature)) {
				return true
			}
		}
	}
	return false
}

// VerifyStandardWebhook checks Standard Webhooks: `v1,` + base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" with the
// key of whsec_<base64>.
func VerifyStandardWebhook(body []byte, header http.Header, secrets []string) bool {
	id, timestamp := header.Get("webhook-id"), header.Get("webhook-timestamp")
	if len(body) == 0 || id == "" || !isFresh(timestamp) {
		return false
	}
	// One `v1,<base64>` per secret the gateway signs with, space-separated (two during a rotation's overlap).
	received := strings.Split(header.Get("webhook-signature"), " ")
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + timestamp + "."))
		mac.Write(body)
		expected := []byte("v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		for _, signature := range received {
			if hmac.Equal(expected, []byte(signature)) {
				return true
			}
		}
	}
	return false
}

func main() {
	var secrets []string
	for _, secret := range strings.Split(os.Getenv("WEBHOOK_SECRET"), ",") {
		if secret != "" {
			secrets = append(secrets, secret)
		}
	}
	verify := VerifyPTWebhook
	if os.Getenv("WEBHOOK_SIGNATURE_SCHEME") == "standard-webhooks" {
		verify = VerifyStandardWebhook
	}
	http.HandleFunc("/webhooks", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !verify(body, r.Header, secrets) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var event struct {
			Event      string `json:"event"`
			DeliveryID string `json:"delivery_id"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Store the event durably here, deduplicating on DeliveryID (the same on every attempt), and only then
		// answer 200: any other answer makes the gateway try again later.
		fmt.Fprintf(os.Stderr, "verificado %s delivery=%s\n", event.Event, event.DeliveryID)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"success":true}`))
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "8099"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, nil))
}
