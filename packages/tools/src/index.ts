export { CalculatorError } from './calculator-error';
export { type CalculatorArguments, type CalculatorResult, calculatorTool } from './calculator-tool';
export { type AddressCheck, type CheckAddressOptions, checkAddress } from './check-address';
export { type ClockArguments, type ClockResult, type ClockToolOptions, clockTool } from './clock-tool';
export { evaluateExpression, MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_LENGTH } from './evaluate-expression';
export type { HttpFetchToolOptions } from './http-fetch-options';
export { type HttpFetchArguments, type HttpFetchResult, httpFetchTool } from './http-fetch-tool';
