import fc from "fast-check";
import { GIF, multipart, sample, type Part } from "./multipart.ts";

/**
 * Multipart bodies for POST /public/v1/media (issue 27's fuzzing, package B): valid samples of each type declared
 * right or as `application/octet-stream`, wrong declared types, truncated multiparts, two files, a field after the
 * file, unknown fields, random bytes, a Content-Length far past the limit, and bodies that are no multipart at all.
 * `expectUpload` says whether a 201 is the only right answer (a valid sample declared right, number field ok).
 */
export interface UploadCase {
  kind: string;
  contentType: string;
  body: Buffer;
  /** A Content-Length to send instead of the body's (the body is then cut: the answer must come first). */
  declaredLength?: number;
  expectUpload: boolean;
}

const SAMPLES = [
  { file: "image.jpg", type: "image/jpeg" },
  { file: "image.png", type: "image/png" },
  { file: "sticker.webp", type: "image/webp" },
  { file: "document.pdf", type: "application/pdf" },
  { file: "audio.ogg", type: "audio/ogg" },
  { file: "video.mp4", type: "video/mp4" },
] as const;
const TEXT = Buffer.from("Pedido 123: segunda via do boleto.\nObrigado!\n", "utf8");

const anyType = fc.oneof(
  fc.constantFrom(
    "image/jpeg",
    "image/png",
    "image/webp",
    "application/pdf",
    "audio/ogg; codecs=opus",
    "video/mp4",
    "text/plain",
    "application/msword",
    "image/gif",
    "application/octet-stream",
    "",
    "x/y",
    "text/plain; charset=utf-8",
  ),
  fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s)),
);
const fileName = fc.oneof(
  // A backslash once escaped the closing quote of the file name (found by this fuzz): the body builder now escapes it.
  fc.constantFrom("a.pdf", "nota fiscal.pdf", "ação.jpg", "../../x", "", "a\tb", "\\", "C:\\fotos\\a.jpg"),
  fc.string({ maxLength: 60 }).filter((s) => !/["\r\n]/.test(s)),
);
const fileBytes = fc.oneof(
  fc.constantFrom(...SAMPLES.map((s) => sample(s.file)), TEXT, GIF),
  fc.uint8Array({ maxLength: 6_000 }).map((b) => Buffer.from(b)),
);

export function uploadCases(numbers: { own: string; other: string }): fc.Arbitrary<UploadCase> {
  const numberField = fc.option(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(numbers.own) },
      { weight: 1, arbitrary: fc.constantFrom(numbers.other, "", "abc", "1".repeat(65), "٣٣") },
    ),
    { nil: undefined },
  );
  const valid = fc
    // A part with an empty file name is a field, not a file (busboy, as browsers' empty inputs).
    .record({
      s: fc.constantFrom(...SAMPLES),
      generic: fc.boolean(),
      name: fileName.filter((n) => n !== ""),
      number: numberField,
    })
    .map(({ s, generic, name, number }): UploadCase => {
      const parts: Part[] = [];
      if (number !== undefined) parts.push({ name: "phone_number_id", value: number });
      parts.push({
        name: "file",
        file: sample(s.file),
        type: generic ? "application/octet-stream" : s.type,
        filename: name,
      });
      const body = multipart(parts);
      return {
        kind: "valid",
        contentType: body.contentType,
        body: body.body,
        expectUpload: number === undefined || number === numbers.own,
      };
    });
  const wrong = fc
    .record({ bytes: fileBytes, type: anyType, name: fileName, number: numberField })
    .map(({ bytes, type, name, number }): UploadCase => {
      const parts: Part[] = [];
      if (number !== undefined) parts.push({ name: "phone_number_id", value: number });
      parts.push({ name: "file", file: bytes, type, filename: name });
      const body = multipart(parts);
      return { kind: "any file", contentType: body.contentType, body: body.body, expectUpload: false };
    });
  const shapes = fc
    .record({
      shape: fc.constantFrom("truncated", "two files", "field after file", "no file", "unknown part", "cut bytes"),
      bytes: fileBytes,
      cut: fc.nat(),
    })
    .map(({ shape, bytes, cut }): UploadCase => {
      const file: Part = { name: "file", file: bytes, type: "application/pdf", filename: "a.pdf" };
      const body =
        shape === "truncated"
          ? multipart([file], { unterminated: true })
          : shape === "two files"
            ? multipart([file, file])
            : shape === "field after file"
              ? multipart([file, { name: "phone_number_id", value: numbers.own }])
              : shape === "no file"
                ? multipart([{ name: "phone_number_id", value: numbers.own }])
                : shape === "unknown part"
                  ? multipart([{ ...file, name: "arquivo" }])
                  : multipart([file]);
      const bytesOut = shape === "cut bytes" ? body.body.subarray(0, cut % (body.body.length + 1)) : body.body;
      return { kind: shape, contentType: body.contentType, body: bytesOut, expectUpload: false };
    });
  const raw = fc
    .record({
      type: fc.constantFrom(
        "multipart/form-data; boundary=abc",
        "multipart/form-data",
        "application/json",
        "text/csv",
        "application/octet-stream",
      ),
      bytes: fc.uint8Array({ maxLength: 2_000 }),
    })
    .map(({ type, bytes }): UploadCase => ({
      kind: "raw",
      contentType: type,
      body: Buffer.from(bytes),
      expectUpload: false,
    }));
  const oversize = fc.constantFrom(...SAMPLES).map((s): UploadCase => {
    const body = multipart([{ name: "file", file: sample(s.file), type: s.type, filename: "x" }]);
    return {
      kind: "oversize Content-Length",
      contentType: body.contentType,
      body: body.body,
      declaredLength: 200 * 1024 * 1024,
      expectUpload: false,
    };
  });
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 3, arbitrary: wrong },
    { weight: 3, arbitrary: shapes },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: oversize },
  );
}
