<?php
// A receiver of the gateway's webhooks in plain PHP 7.4+ (no Composer package): both signature schemes of
// docs/webhooks.md. In WooCommerce/WordPress or Laravel, copy the two functions and call the one of your scheme with
// the raw body (file_get_contents('php://input'); Laravel: $request->getContent()) and the request's headers.
// As is, this file is an endpoint for PHP's built-in server:
//   WEBHOOK_SECRET='whsec_...' WEBHOOK_SIGNATURE_SCHEME=pt php -S 127.0.0.1:8099 webhook.php
// WEBHOOK_SECRET takes "new,old" while you move to a rotated secret: either one verifies.

const TOLERANCE_SECONDS = 300;

function is_fresh(string $timestamp): bool
{
    return preg_match('/^[0-9]{1,12}$/', $timestamp) === 1 && abs(time() - (int) $timestamp) <= TOLERANCE_SECONDS;
}

/** X-PT-Signature (`pt`): `sha256=` + hex HMAC-SHA256 of "{timestamp}.{body}" with the secret as shown. */
function verify_pt_webhook(string $body, array $headers, array $secrets): bool
{
    $timestamp = $headers['x-pt-timestamp'] ?? '';
    if ($body === '' || !is_fresh($timestamp)) return false;
    // X-PT-Signature-Previous: the same signature made with the replaced secret, during a rotation's overlap.
    $received = [$headers['x-pt-signature'] ?? '', $headers['x-pt-signature-previous'] ?? ''];
    foreach ($secrets as $secret) {
        $expected = 'sha256=' . hash_hmac('sha256', "$timestamp.$body", $secret);
        foreach ($received as $signature) if (hash_equals($expected, $signature)) return true;
    }
    return false;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" with the key of whsec_<base64>. */
function verify_standard_webhook(string $body, array $headers, array $secrets): bool
{
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    if ($body === '' || $id === '' || !is_fresh($timestamp)) return false;
    // One `v1,<base64>` per secret the gateway signs with, space-separated (two during a rotation's overlap).
    $received = explode(' ', $headers['webhook-signature'] ?? '');
    foreach ($secrets as $secret) {
        $key = base64_decode(preg_replace('/^whsec_/', '', $secret), true);
        if ($key === false) continue;
        $expected = 'v1,' . base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
        foreach ($received as $signature) if (hash_equals($expected, $signature)) return true;
    }
    return false;
}

if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    http_response_code(405);
    return;
}
$body = file_get_contents('php://input');
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$secrets = array_values(array_filter(explode(',', getenv('WEBHOOK_SECRET') ?: '')));
$valid = getenv('WEBHOOK_SIGNATURE_SCHEME') === 'standard-webhooks'
    ? verify_standard_webhook($body, $headers, $secrets)
    : verify_pt_webhook($body, $headers, $secrets);
if (!$valid) {
    http_response_code(401);
    return;
}
$event = json_decode($body, true);
// Store the event durably here, deduplicating on delivery_id (the same on every attempt), and only then answer 200:
// any other answer makes the gateway try again later.
file_put_contents('php://stderr', "verificado {$event['event']} delivery={$event['delivery_id']}\n");
header('Content-Type: application/json');
echo '{"success":true}';
