export * from "./records";
export * from "./writer";
