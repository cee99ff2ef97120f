export { DEFAULT_THROUGHPUT_POLICY, createNumberThroughput } from "./throughput.ts";
export type {
  NumberThroughput,
  NumberThroughputState,
  Pacing,
  PacingObserver,
  TakeTurnInput,
  ThroughputOptions,
  ThroughputPolicy,
  Turn,
} from "./throughput.ts";
export { noteProviderRefusal, takeSendTurn } from "./turn.ts";
export type { SendTurnInput } from "./turn.ts";
export {
  MAX_MESSAGING_RATE,
  MIN_MESSAGING_RATE,
  MessagingRateError,
  applyMessagingRate,
  setNumberMessagingRate,
} from "./rates.ts";
export type { NumberRateView } from "./rates.ts";
