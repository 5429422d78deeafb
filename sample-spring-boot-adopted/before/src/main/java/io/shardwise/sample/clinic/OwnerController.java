package io.shardwise.sample.clinic;

import org.springframework.data.domain.Page;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;

@Controller
public class OwnerController {
  private final Clinic clinic;

  public OwnerController(Clinic clinic) {
    this.clinic = clinic;
  }

  @InitBinder("owner")
  void onlyFormFields(WebDataBinder binder) {
    binder.setAllowedFields("firstName", "lastName", "city", "telephone");
  }

  @ModelAttribute("owner")
  Owner owner(@PathVariable(name = "ownerId", required = false) Integer ownerId) {
    return ownerId == null ? new Owner() : clinic.owner(ownerId);
  }

  @GetMapping("/owners")
  String find(@RequestParam(defaultValue = "") String lastName, @RequestParam(defaultValue = "0") int page,
      Model model) {
    Page<Owner> found = clinic.findOwners(lastName, page);
    model.addAttribute("lastName", lastName);
    model.addAttribute("found", found);
    return "owners/list";
  }

  @GetMapping("/owners/new")
  String newOwner() {
    return "owners/form";
  }

  @PostMapping("/owners/new")
  String register(@ModelAttribute("owner") Owner owner, BindingResult result) {
    if (!valid(owner, result)) {
      return "owners/form";
    }
    return "redirect:/owners/" + clinic.register(owner).getId();
  }

  @GetMapping("/owners/{ownerId}")
  String show() {
    return "owners/show";
  }

  @GetMapping("/owners/{ownerId}/edit")
  String edit() {
    return "owners/form";
  }

  @PostMapping("/owners/{ownerId}/edit")
  String update(@ModelAttribute("owner") Owner owner, BindingResult result) {
    if (!valid(owner, result)) {
      return "owners/form";
    }
    clinic.save(owner);
    return "redirect:/owners/{ownerId}";
  }

  private static boolean valid(Owner owner, BindingResult result) {
    if (owner.getLastName() == null || owner.getLastName().isBlank()) {
      result.rejectValue("lastName", "required", "is required");
    }
    return !result.hasErrors();
  }
}
