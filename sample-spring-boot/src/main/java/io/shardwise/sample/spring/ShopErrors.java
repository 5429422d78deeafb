package io.shardwise.sample.spring;

import io.shardwise.hibernate.readwrite.ConsistencyTokenException;
import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.spring.ShardwiseExceptionTranslator;
import io.shardwise.hibernate.ShardwiseException;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Routing refusals as RFC 9457 problem details: a request without a usable shard key is the
 * client's error (400), an unavailable shard a temporary one (503). The Shardwise exception may
 * arrive as itself or inside a DataAccessException (repositories translate it).
 */
@RestControllerAdvice
class ShopErrors {

  @ExceptionHandler({ShardwiseException.class, DataAccessException.class})
  ProblemDetail shardwise(RuntimeException e) {
    ShardwiseException cause = ShardwiseExceptionTranslator.find(e);
    if (cause == null) {
      throw e;
    }
    HttpStatus status = cause instanceof ShardUnavailableException ? HttpStatus.SERVICE_UNAVAILABLE
        : cause instanceof ShardKeyException || cause instanceof NoShardSelectedException
            || cause instanceof ConsistencyTokenException ? HttpStatus.BAD_REQUEST
        : HttpStatus.INTERNAL_SERVER_ERROR;
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, cause.getMessage());
    problem.setTitle(cause.getClass().getSimpleName());
    return problem;
  }
}
