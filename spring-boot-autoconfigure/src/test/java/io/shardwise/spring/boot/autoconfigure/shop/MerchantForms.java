package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.server.ResponseStatusException;

/**
 * A server-rendered application's write flow: a form posts, the handler answers with a redirect
 * (post/redirect/get), or with an error after its transaction committed; the next request reads
 * through a read-only transaction.
 */
@Controller
public class MerchantForms {
  private final ShopService shop;

  MerchantForms(ShopService shop) {
    this.shop = shop;
  }

  @PostMapping("/merchant-forms")
  public String open(@RequestParam long id, @RequestParam String name) {
    shop.openMerchant(id, name);
    return "redirect:/merchant-forms/" + id;
  }

  @PostMapping("/merchant-forms/{merchantId}/rename-then-fail")
  public String renameThenFail(@PathVariable long merchantId, @RequestParam String name) {
    shop.renameMerchant(merchantId, name);
    throw new ResponseStatusException(HttpStatus.CONFLICT, "renamed, then refused");
  }

  @PostMapping("/unrouted-merchant-forms")
  public String openWithoutAShard(@RequestParam long id, @RequestParam String name) {
    shop.openMerchantWithoutAShard(id, name);
    return "redirect:/unrouted-merchant-forms/" + id;
  }

  @GetMapping("/unrouted-merchant-forms/{merchantId}")
  public ResponseEntity<String> showWithoutAShard(@PathVariable long merchantId) {
    return shown(shop.seeMerchantWithoutAShard(merchantId));
  }

  /** The merchant's name and the server that read it, or 404 when that server does not have it. */
  @GetMapping("/merchant-forms/{merchantId}")
  public ResponseEntity<String> show(@PathVariable long merchantId) {
    return shown(shop.seeMerchant(merchantId));
  }

  private static ResponseEntity<String> shown(ShopService.Seen seen) {
    String body = seen.name() + " " + seen.server().port() + " " + seen.server().inRecovery();
    return ResponseEntity.status(seen.name() == null ? HttpStatus.NOT_FOUND : HttpStatus.OK).body(body);
  }
}
