// Errors every AWS JSON service can answer, which the service models do not list as shapes.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/CommonErrors.html
import { ServiceError } from './service-error.js';

export class ValidationException extends ServiceError {
  constructor(message: string) {
    super('ValidationException', message, 400);
  }
}

export class SerializationException extends ServiceError {
  constructor(message: string) {
    super('SerializationException', message, 400);
  }
}

export class UnknownOperationException extends ServiceError {
  constructor(message = '') {
    super('UnknownOperationException', message, 400);
  }
}

export class MissingAuthenticationTokenException extends ServiceError {
  constructor(message = 'Missing Authentication Token') {
    super('MissingAuthenticationTokenException', message, 403);
  }
}

export class ThrottlingException extends ServiceError {
  constructor(message: string) {
    super('ThrottlingException', message, 400);
  }
}

export class InternalFailure extends ServiceError {
  constructor(message = 'We encountered an internal error. Please try again.') {
    super('InternalFailure', message, 500, 'server');
  }
}

export class ServiceUnavailable extends ServiceError {
  constructor(message = 'Service is unavailable. Please try again later.') {
    super('ServiceUnavailable', message, 503, 'server');
  }
}

export class RequestEntityTooLarge extends ServiceError {
  constructor(message: string) {
    super('RequestEntityTooLargeException', message, 413);
  }
}
