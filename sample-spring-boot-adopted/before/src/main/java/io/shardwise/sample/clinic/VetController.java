package io.shardwise.sample.clinic;

import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;

@Controller
public class VetController {
  private final Clinic clinic;

  public VetController(Clinic clinic) {
    this.clinic = clinic;
  }

  @GetMapping("/vets")
  String vets(Model model) {
    model.addAttribute("vets", clinic.vets());
    return "vets";
  }
}
