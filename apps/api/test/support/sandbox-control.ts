import type { TestGateway } from "@gw/test-stack";

async function post(gateway: TestGateway, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${gateway.sandbox.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

export const sandboxControl = {
  fault: (gateway: TestGateway, rule: Record<string, unknown>) => post(gateway, "/_sandbox/faults", rule),
  config: (gateway: TestGateway, config: Record<string, unknown>) => post(gateway, "/_sandbox/config", config),
  statuses: (gateway: TestGateway, body: Record<string, unknown>) =>
    post(gateway, "/_sandbox/statuses", body) as Promise<{ webhook_status: number | null }>,
  async sent(
    gateway: TestGateway,
  ): Promise<{ phone_number_id: string; wamid: string; body: Record<string, unknown>; raw: string }[]> {
    return (await (await fetch(`${gateway.sandbox.url}/_sandbox/sent`)).json()) as never;
  },
  async requests(gateway: TestGateway): Promise<{ method: string; path: string; status: number | null }[]> {
    return (await (await fetch(`${gateway.sandbox.url}/_sandbox/requests`)).json()) as never;
  },
};
