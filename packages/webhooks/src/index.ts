export * from "@gw/receiver";
