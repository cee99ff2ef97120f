import express, { type RequestHandler } from "express";
import {
  CAMPAIGN_CSV_COLUMNS,
  CAMPAIGN_CSV_MAX_BYTES,
  CAMPAIGN_CSV_MAX_FIELD_LENGTH,
  CAMPAIGN_CSV_MAX_FIELDS,
  CAMPAIGN_MAX_RECIPIENTS,
  CampaignCreateIn,
  CampaignCsvQuery,
  CampaignDetailOut,
  codeList,
  errorResponse,
  parseRequest,
  RequestValidationError,
  requestExamples,
  refusalOrValidation,
} from "@gw/contracts";
import { RecipientsFileError, createCampaign } from "@gw/core/campaigns";
import { decodeCsv, isCsvCharset } from "@gw/core/csv";
import type { ErrorCode } from "@gw/errors";
import { bodyCutShort } from "../../http/errors.ts";
import { streamedBody } from "../../http/streamed-body.ts";
import { defineRoute } from "../define-route.ts";

// A campaign's JSON list is far above the 256 KiB of other bodies: up to 100 000 rows.
const JSON_BODY_LIMIT = "32mb";
const parseJson = express.json({ type: () => true, limit: JSON_BODY_LIMIT, strict: false });

const isCsv = (req: express.Request) => req.is("text/csv") === "text/csv";

/**
 * JSON, whatever the Content-Type (as the other bodies), except `text/csv`: the recipients as a CSV file, left
 * unread here and parsed as it arrives (core's rowsFromCsv), so a file is never whole in memory and its reading
 * stops at the first row that refuses it.
 */
const campaignBody: RequestHandler = (req, res, next) => {
  if (req.readableAborted) return next(bodyCutShort());
  if (isCsv(req)) return next();
  parseJson(req, res, next);
};

const TEMPLATE_REFUSALS: readonly ErrorCode[] = [
  "template_not_found",
  "template_paused",
  "invalid_template",
  "template_format_unsupported",
];

const CSV_EXAMPLE =
  "to,variable_1,variable_2,variable_3,header_text,client_ref\r\n" +
  "5511987654321,Maria,12345,3,12345,cliente-1\r\n" +
  '"+55 21 99876-5432",João,12346,1,12346,cliente-2\r\n';

/** POST /public/v1/campaigns: a draft campaign, with the validation report of every row. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/campaigns",
  operationId: "createCampaign",
  scope: "messages:send",
  summary: "Create a campaign (a bulk template send), as a draft",
  description:
    `Every row is validated before anything is sent: an invalid number, the wrong number of variables for the template (or any other pre-check of a template send), or a recipient already given by an earlier row is refused on its own and reported in \`rejected_rows\`; the others are the campaign's recipients. Nothing is sent until \`POST /campaigns/{campaign_id}/start\` names the accepted count. Up to ${CAMPAIGN_MAX_RECIPIENTS} rows, as a JSON list or as a CSV file (\`Content-Type: text/csv\`, the campaign's fields in the query string; columns: ${CAMPAIGN_CSV_COLUMNS.join(", ")}; separated by \`,\` or \`;\`; the header line is required and \`row\` numbers count data rows; at most ${CAMPAIGN_CSV_MAX_BYTES / (1024 * 1024)} MiB, ${CAMPAIGN_CSV_MAX_FIELDS} fields per line and ${CAMPAIGN_CSV_MAX_FIELD_LENGTH} characters per field: the file is read as it arrives and refused at the first line past a limit or past row ${CAMPAIGN_MAX_RECIPIENTS}). ` +
    "Each recipient is sent through the same send service as `POST /messages` (its `message.status` events carry `campaign_id`), paced at the business number's messaging rate.",
  // The body is read here, as JSON or as a CSV file parsed as it arrives.
  ownRequest: {
    readBody: campaignBody,
    documented: {
      query: CampaignCsvQuery.partial(),
      body: {
        required: true,
        content: {
          "application/json": {
            schema: CampaignCreateIn,
            examples: requestExamples(CampaignCreateIn, [
              { name: "list", summary: "Two recipients with their variables" },
            ]),
          },
          "text/csv": {
            schema: { type: "string" },
            examples: { csv: { summary: "The same two recipients as a CSV upload", value: CSV_EXAMPLE } },
          },
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created as a draft, with its validation report (`rejected_rows`).",
      content: { "application/json": { schema: CampaignDetailOut } },
    },
    400: errorResponse(
      "Business number not in the account, or a body that cannot be read (Content-Encoding, cut short).",
      ["no_connected_number", "bad_request"],
    ),
    413: errorResponse(
      `JSON body above 32 MiB, or CSV file above ${CAMPAIGN_CSV_MAX_BYTES / (1024 * 1024)} MiB (after any Content-Encoding).`,
      ["payload_too_large"],
    ),
    422: refusalOrValidation(
      `The template cannot be sent in a campaign — error envelope, codes: ${codeList(TEMPLATE_REFUSALS)}; or the request or the CSV file itself is invalid (unreadable, unknown or missing columns, no rows, too many rows, a line past the field limits) — \`HTTPValidationError\`.`,
      TEMPLATE_REFUSALS,
      ["template_not_found"],
    ),
    503: errorResponse("The template catalogue could not be read; nothing was created, repeat the call.", [
      "templates_unavailable",
    ]),
  },
  async handler({ accountId, actor, req }, deps) {
    const services = {
      db: deps.db,
      directory: deps.directory,
      templates: deps.templates,
      throughput: deps.campaigns.throughput,
    };
    let fields;
    let recipients: Parameters<typeof createCampaign>[1]["recipients"];
    if (isCsv(req)) {
      fields = parseRequest(CampaignCsvQuery, "query", req.query);
      const body = streamedBody(req, { limitBytes: CAMPAIGN_CSV_MAX_BYTES, isCharset: isCsvCharset });
      recipients = { kind: "csv", text: decodeCsv(body.bytes, body.charset) };
    } else {
      const body = parseRequest(CampaignCreateIn, "body", req.body);
      fields = body;
      recipients = { kind: "list", rows: body.recipients };
    }
    return createCampaign(services, {
      accountId,
      actor,
      name: fields.name,
      template: fields.template,
      language: fields.language,
      phoneNumberId: fields.phone_number_id,
      startAt: fields.start_at ? new Date(fields.start_at) : null,
      recipients,
    }).catch((error: unknown) => {
      // A file refused as a whole is a request that does not validate (422 HTTPValidationError, `type` the problem).
      if (error instanceof RecipientsFileError)
        throw new RequestValidationError([{ loc: ["body"], msg: error.message, type: error.problem }]);
      throw error;
    });
  },
});
