package io.shardwise.sample.clinic;

import java.util.List;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;

/** A pet added to an owner, a visit added to a pet: each form saves the owner it was shown for. */
@Controller
@RequestMapping("/owners/{ownerId}")
public class PetController {
  private final Clinic clinic;

  public PetController(Clinic clinic) {
    this.clinic = clinic;
  }

  @InitBinder("owner")
  void ownerIsNotEditedHere(WebDataBinder binder) {
    binder.setDisallowedFields("*");
  }

  @InitBinder("pet")
  void petFields(WebDataBinder binder) {
    binder.setAllowedFields("name", "birthDate", "kind");
  }

  @InitBinder("visit")
  void visitFields(WebDataBinder binder) {
    binder.setAllowedFields("date", "description");
  }

  @ModelAttribute("owner")
  Owner owner(@PathVariable int ownerId) {
    return clinic.owner(ownerId);
  }

  @ModelAttribute("kinds")
  List<PetKind> kinds() {
    return clinic.kinds();
  }

  @GetMapping("/pets/new")
  String newPet(@ModelAttribute("pet") Pet pet) {
    return "pets/form";
  }

  @PostMapping("/pets/new")
  String addPet(@ModelAttribute("owner") Owner owner, @ModelAttribute("pet") Pet pet, BindingResult result) {
    if (pet.getName() == null || pet.getName().isBlank()) {
      result.rejectValue("name", "required", "is required");
      return "pets/form";
    }
    owner.addPet(pet);
    clinic.save(owner);
    return "redirect:/owners/{ownerId}";
  }

  @GetMapping("/pets/{petId}/visits/new")
  String newVisit(@ModelAttribute("owner") Owner owner, @PathVariable int petId,
      @ModelAttribute("visit") Visit visit, Model model) {
    model.addAttribute("pet", owner.getPet(petId));
    return "pets/visit";
  }

  @PostMapping("/pets/{petId}/visits/new")
  String addVisit(@ModelAttribute("owner") Owner owner, @PathVariable int petId,
      @ModelAttribute("visit") Visit visit, BindingResult result, Model model) {
    Pet pet = owner.getPet(petId);
    if (visit.getDescription() == null || visit.getDescription().isBlank()) {
      result.rejectValue("description", "required", "is required");
      model.addAttribute("pet", pet);
      return "pets/visit";
    }
    pet.addVisit(visit);
    clinic.save(owner);
    return "redirect:/owners/{ownerId}";
  }
}
