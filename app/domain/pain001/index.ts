export * from "./writer";
