package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
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

  @GetMapping("/merchants/{merchantId}/server")
  public ShopService.Server serverOfMerchant(@PathVariable long merchantId) {
    return probe.readWrite();
  }
}
