import { requestError, type GatewayClient } from "./client.ts";
import type { paths } from "./schema.ts";

/**
 * Async iterators over the paged lists, following the contract's cursors: deliveries, campaigns and orders go back in time
 * with `before_id = next_before_id`, a campaign's recipients forward with `after_id = next_after_id`, until the
 * cursor is null. A refused page throws GatewayRequestError.
 */

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;
type Ok<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { "application/json": { data: infer D } } } } };
}
  ? D
  : never;

export type Delivery = Ok<"/public/v1/deliveries">["deliveries"][number];
export type Campaign = Ok<"/public/v1/campaigns">["campaigns"][number];
export type CampaignRecipient = Ok<"/public/v1/campaigns/{campaign_id}/recipients">["recipients"][number];
export type Order = Ok<"/public/v1/orders">["orders"][number];

/** Every delivery of the account, most recent first (`status` filters, `limit` is the page size). */
export async function* iterateDeliveries(
  client: GatewayClient,
  query: Omit<Query<"/public/v1/deliveries">, "before_id"> = {},
): AsyncGenerator<Delivery, void, undefined> {
  let before: number | undefined;
  do {
    const { data, error, response } = await client.GET("/public/v1/deliveries", {
      params: { query: { ...query, before_id: before } },
    });
    if (!data) throw requestError(response, error);
    yield* data.data.deliveries;
    before = data.data.next_before_id ?? undefined;
  } while (before !== undefined);
}

/** Every campaign of the account, newest first, with its progress. */
export async function* iterateCampaigns(
  client: GatewayClient,
  query: Omit<Query<"/public/v1/campaigns">, "before_id"> = {},
): AsyncGenerator<Campaign, void, undefined> {
  let before: string | undefined;
  do {
    const { data, error, response } = await client.GET("/public/v1/campaigns", {
      params: { query: { ...query, before_id: before } },
    });
    if (!data) throw requestError(response, error);
    yield* data.data.campaigns;
    before = data.data.next_before_id ?? undefined;
  } while (before !== undefined);
}

/** Every recipient of a campaign, in list order, with its outcome (`status` filters). */
export async function* iterateCampaignRecipients(
  client: GatewayClient,
  campaignId: string,
  query: Omit<Query<"/public/v1/campaigns/{campaign_id}/recipients">, "after_id"> = {},
): AsyncGenerator<CampaignRecipient, void, undefined> {
  let after: number | undefined;
  do {
    const { data, error, response } = await client.GET("/public/v1/campaigns/{campaign_id}/recipients", {
      params: { path: { campaign_id: campaignId }, query: { ...query, after_id: after } },
    });
    if (!data) throw requestError(response, error);
    yield* data.data.recipients;
    after = data.data.next_after_id ?? undefined;
  } while (after !== undefined);
}

/** Every Pix order of the account, newest first, without its history (`status`, `payment_status` filter). */
export async function* iterateOrders(
  client: GatewayClient,
  query: Omit<Query<"/public/v1/orders">, "before_id"> = {},
): AsyncGenerator<Order, void, undefined> {
  let before: number | undefined;
  do {
    const { data, error, response } = await client.GET("/public/v1/orders", {
      params: { query: { ...query, before_id: before } },
    });
    if (!data) throw requestError(response, error);
    yield* data.data.orders;
    before = data.data.next_before_id ?? undefined;
  } while (before !== undefined);
}
