package io.shardwise.sample.clinic;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small animal clinic: owners, their pets and the pets' visits, on server-rendered pages. */
@SpringBootApplication
public class ClinicApplication {

  public static void main(String[] args) {
    SpringApplication.run(ClinicApplication.class, args);
  }
}
