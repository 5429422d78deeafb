package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Which server a request's transactions reach, for the web routing tests. */
@RestController
public class ServerController {
  private final ServerProbe probe;

  ServerController(ServerProbe probe) {
    this.probe = probe;
  }

  @GetMapping("/server")
  public ShopService.Server server() {
    return probe.readOnly();
  }

  /** No @WithShard, and a key the web interceptor does not read: the service's first key chooses the shard. */
  @GetMapping("/unrouted/server")
  public ShopService.Server serverAfterFinding(@RequestParam long merchant, @RequestParam boolean write) {
    return write ? probe.readWriteAfterFinding(merchant) : probe.readOnlyAfterFinding(merchant);
  }

  @GetMapping("/merchants/{merchantId}/server")
  public ShopService.Server serverOfMerchant(@PathVariable long merchantId) {
    return probe.readWrite();
  }
}
